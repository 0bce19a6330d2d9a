import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ExecEvent } from "../port/exec-event.js";
import { EventQueue } from "./event-queue.js";
import { execEventStream } from "./exec-event-stream.js";
import { OutputCollector, utf8Prefix } from "./output-collector.js";

describe("EventQueue", () => {
  test("items pushed before and while iterating arrive in order; end stops, fail throws after the items", async () => {
    const queue = new EventQueue<number>();
    queue.push(1);
    setTimeout(() => {
      queue.push(2);
      queue.end();
      queue.push(3);
    }, 5);
    const seen: number[] = [];
    for await (const item of queue) seen.push(item);
    assert.deepEqual(seen, [1, 2]);
    const failing = new EventQueue<number>();
    failing.push(7);
    failing.fail(new Error("broken"));
    const got: number[] = [];
    await assert.rejects(async () => {
      for await (const item of failing) got.push(item);
    }, /broken/);
    assert.deepEqual(got, [7]);
  });
});

describe("OutputCollector", () => {
  test("caps stdout + stderr together, cutting at a character boundary, and overflows once", () => {
    let overflows = 0;
    const chunks: string[] = [];
    const collector = new OutputCollector(
      5,
      (_stream, data) => chunks.push(data),
      () => overflows++,
    );
    collector.push("stdout", "ab");
    collector.push("stderr", "cé✓");
    collector.push("stdout", "more");
    assert.equal(collector.stdout, "ab");
    assert.equal(collector.stderr, "cé");
    assert.equal(collector.truncated, true);
    assert.equal(overflows, 1);
    assert.deepEqual(chunks, ["ab", "cé"]);
    assert.equal(utf8Prefix("✓✓", 4), "✓");
  });

  test("result carries what was collected, the exit code, the duration and the timeout flag", () => {
    const collector = new OutputCollector(3);
    collector.push("stdout", "abcd");
    assert.deepEqual(collector.result(null, 12, true), {
      exitCode: null,
      stdout: "abc",
      stderr: "",
      truncated: true,
      timedOut: true,
      durationMs: 12,
    });
    assert.equal(new OutputCollector(3).result(0, 1).timedOut, false);
  });
});

describe("execEventStream", () => {
  const result = { exitCode: 0, stdout: "hi", stderr: "", truncated: false, timedOut: false, durationMs: 1 };

  test("the run's events in order, then exited with its result; a failure after the events before it", async () => {
    const seen: string[] = [];
    for await (const event of execEventStream(async (emit) => {
      emit({ type: "started" });
      emit({ type: "stdout", data: "hi", bytes: new TextEncoder().encode("hi") });
      return result;
    }))
      seen.push(event.type);
    assert.deepEqual(seen, ["started", "stdout", "exited"]);
    const got: string[] = [];
    await assert.rejects(async () => {
      for await (const event of execEventStream(async (emit) => {
        emit({ type: "started" });
        throw new Error("lost");
      }))
        got.push(event.type);
    }, /lost/);
    assert.deepEqual(got, ["started"]);
  });

  test("leaving the loop early aborts stop; nothing runs before the first next()", async () => {
    let stop: AbortSignal | undefined;
    let runs = 0;
    const stream = execEventStream((emit, signal) => {
      runs++;
      stop = signal;
      emit({ type: "started" });
      return new Promise<never>(() => {});
    });
    assert.equal(runs, 0);
    for await (const event of stream as AsyncIterable<ExecEvent>) {
      assert.equal(event.type, "started");
      break;
    }
    assert.equal(runs, 1);
    assert.equal(stop?.aborted, true);
  });
});
