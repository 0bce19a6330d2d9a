import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { ExecEvent } from "../port/exec-event.js";
import type { ExecResult } from "../port/exec-result.js";
import { type ExecRun, execCommands } from "./exec-commands.js";
import { FakeContext } from "./fake-context.js";

const result: ExecResult = { exitCode: 0, stdout: "hi", stderr: "", timedOut: false, truncated: false, durationMs: 1 };

/** A recipe whose plan refuses `argv: ["bad"]` and whose run emits one output chunk, recording what it was given. */
function recipe(runs: ExecRun<{ id: string }>[], connect?: boolean) {
  return execCommands<FakeContext, { timeoutMs: number }, { id: string }>({
    plan: (_context, request) => {
      if ("argv" in request && request.argv?.[0] === "bad") throw invalidRequest("bad command", {}, "fake");
      return { timeoutMs: request.timeoutMs ?? 100 };
    },
    run: async (_context, _plan, run) => {
      runs.push(run);
      run.emit?.({ type: "stdout", data: "hi" } as ExecEvent);
      return result;
    },
    ...(connect === undefined ? {} : { connect }),
  });
}

describe("execCommands", () => {
  test("exec: planned before any request; the run gets the instance, the call (deadline plus the grace) and no emit", async () => {
    const context = new FakeContext();
    context.add("a");
    context.known.markPristine("a");
    const runs: ExecRun<{ id: string }>[] = [];
    const { exec } = recipe(runs);
    const bad = await exec(context, { id: "a" }, { argv: ["bad"] }).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(bad, "INVALID_REQUEST"));
    assert.equal(context.describes + context.connects, 0);
    assert.deepEqual(await exec(context, { id: "a" }, { argv: ["ok"], timeoutMs: 50 }), result);
    const [run] = runs;
    assert.equal(run?.operation, "exec");
    assert.deepEqual(run?.instance, { id: "a" });
    assert.equal(run?.call.timeoutMs, 50 + context.options.timeouts.execGraceMs);
    assert.equal(run?.emit, undefined);
    assert.equal(context.known.isPristine("a"), false, "a command ran");
  });

  test("execStream: the run's events, then exited; leaving the loop aborts the run's signal", async () => {
    const context = new FakeContext();
    context.add("a");
    const runs: ExecRun<{ id: string }>[] = [];
    const { execStream } = recipe(runs);
    const events: ExecEvent[] = [];
    for await (const event of execStream(context, { id: "a" }, { argv: ["ok"] })) events.push(event);
    assert.deepEqual(events, [
      { type: "stdout", data: "hi" },
      { type: "exited", result },
    ]);
    for await (const _event of execStream(context, { id: "a" }, { argv: ["ok"] })) break;
    assert.equal(runs[1]?.operation, "execStream");
    assert.equal(runs[1]?.signal.aborted, true);
  });

  test("connect: false checks ownership and connects nothing", async () => {
    const context = new FakeContext();
    context.add("a");
    context.add("f", "someone-else");
    const runs: ExecRun<{ id: string }>[] = [];
    const { exec } = recipe(runs, false);
    await exec(context, { id: "a" }, { argv: ["ok"] });
    assert.equal(context.connects, 0);
    assert.equal(runs[0]?.instance, undefined);
    const foreign = await exec(context, { id: "f" }, { argv: ["ok"] }).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(foreign, "FOREIGN_SANDBOX"));
  });
});
