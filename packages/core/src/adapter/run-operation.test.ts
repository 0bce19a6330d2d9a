import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { OpOptions } from "../port/op-options.js";
import { runOperation } from "./run-operation.js";

const context = { provider: "test", operation: "readFile", defaultTimeoutMs: 1_000 };

describe("runOperation", () => {
  test("malformed per-call options are INVALID_REQUEST and the task never starts", async () => {
    for (const op of [{ signal: {} }, { timeoutMs: -1 }, { timeoutMs: "5" }, "fast", null]) {
      let started = false;
      await assert.rejects(
        runOperation(op as unknown as OpOptions, context, async () => {
          started = true;
        }),
        (error) => SandportError.hasCode(error, "INVALID_REQUEST"),
        JSON.stringify(op),
      );
      assert.equal(started, false, JSON.stringify(op));
    }
  });

  test("the task gets a signal and its remaining budget; the caller's timeoutMs wins over the default", async () => {
    const seen = await runOperation({ timeoutMs: 5_000 }, context, async (call) => ({
      timeoutMs: call.timeoutMs,
      remaining: call.remainingMs(),
      aborted: call.signal.aborted,
    }));
    assert.equal(seen.timeoutMs, 5_000);
    assert.ok(seen.remaining > 4_000 && seen.remaining <= 5_000);
    assert.equal(seen.aborted, false);
  });

  test("a deadline rejects DEADLINE_EXCEEDED promptly and fires the task's signal", async () => {
    let signal: AbortSignal | undefined;
    await assert.rejects(
      runOperation({ timeoutMs: 20 }, context, (call) => {
        signal = call.signal;
        return new Promise(() => {});
      }),
      (error) => SandportError.hasCode(error, "DEADLINE_EXCEEDED"),
    );
    assert.equal(signal?.aborted, true);
  });

  test("what the task throws goes through mapError; a synchronous throw too", async () => {
    const mapError = (error: unknown) =>
      new SandportError({ code: "NOT_FOUND", provider: "test", message: String(error), cause: error });
    await assert.rejects(
      runOperation(undefined, { ...context, mapError }, async () => {
        throw new Error("vendor 404");
      }),
      (error) => SandportError.hasCode(error, "NOT_FOUND"),
    );
    await assert.rejects(
      runOperation(undefined, { ...context, mapError }, () => {
        throw new Error("sync");
      }),
      (error) => SandportError.hasCode(error, "NOT_FOUND"),
    );
    await assert.rejects(
      runOperation(undefined, context, async () => {
        throw new Error("unclassified");
      }),
      (error) => SandportError.hasCode(error, "UNEXPECTED"),
    );
  });
});
