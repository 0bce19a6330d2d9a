import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { OutputCollector } from "../streams/output-collector.js";
import { asyncCommandLogs, asyncCommandStatus, VANISHED_END } from "./async-command-result.js";

describe("async command results", () => {
  test("status: running has no code; a timed-out end has none either; a vanished one is 255", () => {
    assert.deepEqual(asyncCommandStatus("running"), { state: "running", exitCode: null });
    assert.deepEqual(asyncCommandStatus({ exitCode: 137, durationMs: 5, timedOut: true }), {
      state: "exited",
      exitCode: null,
    });
    assert.deepEqual(asyncCommandStatus({ exitCode: 3, durationMs: 5, timedOut: false }), {
      state: "exited",
      exitCode: 3,
    });
    assert.deepEqual(asyncCommandStatus(VANISHED_END), { state: "exited", exitCode: 255 });
    const capped = asyncCommandStatus({ exitCode: 141, durationMs: 5, timedOut: false, capped: true });
    assert.deepEqual(capped, { state: "exited", exitCode: null });
  });

  test("status: a limit the end names is carried, by the ExecResult rule (never for exit 0)", () => {
    const killed = asyncCommandStatus({ exitCode: 137, durationMs: 5, timedOut: false, limit: "memory" });
    assert.deepEqual(killed, { state: "exited", exitCode: 137, limit: "memory" });
    const held = asyncCommandStatus({ exitCode: 124, durationMs: 5, timedOut: true, limit: "processes" });
    assert.deepEqual(held, { state: "exited", exitCode: null, limit: "processes" });
    const coped = asyncCommandStatus({ exitCode: 0, durationMs: 5, timedOut: false, limit: "disk" });
    assert.deepEqual(coped, { state: "exited", exitCode: 0 });
  });

  test("logs: capped output, the running time while running, the recorded end after", () => {
    const output = new OutputCollector(4);
    output.push("stdout", "abcdef");
    const running = asyncCommandLogs(output, "running", 120);
    assert.deepEqual(
      [running.exitCode, running.durationMs, running.truncated, running.stdout],
      [null, 120, true, "abcd"],
    );
    const timedOut = asyncCommandLogs(output, { exitCode: 124, durationMs: 900, timedOut: true }, 0);
    assert.deepEqual([timedOut.exitCode, timedOut.timedOut, timedOut.durationMs], [null, true, 900]);
  });

  test("logs: the output cap stopped it (its mark, or output past the cap) → exitCode null, not timed out", () => {
    const past = new OutputCollector(4);
    past.push("stdout", "abcdef");
    const exited = asyncCommandLogs(past, { exitCode: 0, durationMs: 30, timedOut: false }, 0);
    assert.deepEqual([exited.exitCode, exited.truncated, exited.timedOut], [null, true, false]);
    const marked = asyncCommandLogs(
      new OutputCollector(4),
      { exitCode: 141, durationMs: 30, timedOut: true, capped: true },
      0,
    );
    assert.deepEqual([marked.exitCode, marked.timedOut], [null, false]);
    const under = new OutputCollector(4);
    under.push("stdout", "abc");
    const normal = asyncCommandLogs(under, { exitCode: 3, durationMs: 30, timedOut: false, capped: false }, 0);
    assert.deepEqual([normal.exitCode, normal.truncated, normal.timedOut], [3, false, false]);
  });

  test("logs: a limit the vendor recorded is kept for a failed end and dropped for a successful one", () => {
    const output = new OutputCollector(64);
    const killed = asyncCommandLogs(output, { exitCode: 137, durationMs: 5, timedOut: false, limit: "memory" }, 0);
    assert.deepEqual([killed.exitCode, killed.limit], [137, "memory"]);
    const coped = asyncCommandLogs(output, { exitCode: 0, durationMs: 5, timedOut: false, limit: "processes" }, 0);
    assert.equal("limit" in coped, false);
    assert.equal("limit" in asyncCommandLogs(output, { exitCode: 137, durationMs: 5, timedOut: false }, 0), false);
  });
});
