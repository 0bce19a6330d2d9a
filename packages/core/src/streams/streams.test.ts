import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { EventQueue } from "./event-queue.js";
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
