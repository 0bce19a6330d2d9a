import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExecEvent } from "../port/exec-event.js";
import type { ExecResult } from "../port/exec-result.js";
import { execEventStream } from "./exec-event-stream.js";

const result: ExecResult = { exitCode: 0, stdout: "a", stderr: "", truncated: false, timedOut: false, durationMs: 1 };
const chunk: ExecEvent = { type: "stdout", data: "a", bytes: new TextEncoder().encode("a") };

test("execEventStream yields what run emits, then exited with its result", async () => {
  const events: ExecEvent[] = [];
  for await (const event of execEventStream(async (_stop, emit) => {
    emit({ type: "started" });
    emit(chunk);
    return result;
  })) {
    events.push(event);
  }
  assert.deepEqual(events, [{ type: "started" }, chunk, { type: "exited", result }]);
});

test("a failed run ends the stream with its error, after what was emitted", async () => {
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const event of execEventStream(async (_stop, emit) => {
      emit({ type: "started" });
      throw new Error("lost");
    })) {
      seen.push(event.type);
    }
  }, /lost/);
  assert.deepEqual(seen, ["started"]);
});

test("leaving the loop early fires stop", async () => {
  let stop: AbortSignal | undefined;
  for await (const _event of execEventStream((signal, emit) => {
    stop = signal;
    emit({ type: "started" });
    return new Promise(() => {});
  })) {
    break;
  }
  assert.equal(stop?.aborted, true);
});
