import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExecEvent } from "../port/exec-event.js";
import { eventStream } from "./event-stream.js";

const result = { exitCode: 0, stdout: "hi", stderr: "", truncated: false, timedOut: false, durationMs: 1 };

test("eventStream yields the run's events, then exited with its result", async () => {
  const events: ExecEvent[] = [];
  for await (const event of eventStream(async (emit) => {
    emit({ type: "started" });
    emit({ type: "stdout", data: "hi", bytes: new TextEncoder().encode("hi") });
    return result;
  })) {
    events.push(event);
  }
  assert.deepEqual(
    events.map((event) => event.type),
    ["started", "stdout", "exited"],
  );
  assert.deepEqual((events[2] as { result: unknown }).result, result);
});

test("a failed run fails the stream; leaving the loop early fires stop", async () => {
  await assert.rejects(async () => {
    for await (const _event of eventStream(() => Promise.reject(new Error("lost")))) {
      // never reached
    }
  }, /lost/);
  let stopped = false;
  for await (const event of eventStream(
    (emit, stop) =>
      new Promise((resolve) => {
        emit({ type: "started" });
        stop.addEventListener("abort", () => {
          stopped = true;
          resolve(result);
        });
      }),
  )) {
    if (event.type === "started") break;
  }
  assert.equal(stopped, true);
});
