import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExecEvent } from "../port/exec-event.js";
import type { ExecResult } from "../port/exec-result.js";
import { commandEvents } from "./command-events.js";

const result: ExecResult = { exitCode: 0, stdout: "hi", stderr: "", truncated: false, timedOut: false, durationMs: 1 };
const bytes = new TextEncoder().encode("hi");

test("yields what the run emits, then exited with its result", async () => {
  const seen: string[] = [];
  for await (const event of commandEvents(async (_stop, emit) => {
    emit({ type: "started", pid: 7 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    emit({ type: "stdout", data: "hi", bytes });
    return result;
  })) {
    seen.push(event.type === "exited" ? `exited ${event.result.stdout}` : event.type);
  }
  assert.deepEqual(seen, ["started", "stdout", "exited hi"]);
});

test("a failed run throws after the events before it; leaving the loop early stops the run", async () => {
  const seen: ExecEvent[] = [];
  await assert.rejects(async () => {
    for await (const event of commandEvents(async (_stop, emit) => {
      emit({ type: "started" });
      throw new Error("lost");
    }))
      seen.push(event);
  }, /lost/);
  assert.equal(seen.length, 1);
  let stopped: unknown;
  for await (const event of commandEvents(
    (stop, emit) =>
      new Promise<ExecResult>((resolve) => {
        emit({ type: "started" });
        stop.addEventListener("abort", () => {
          stopped = stop.reason;
          resolve(result);
        });
      }),
  )) {
    if (event.type === "started") break;
  }
  assert.match(String((stopped as Error)?.message), /consumer stopped reading/);
});
