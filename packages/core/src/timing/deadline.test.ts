import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { sleep } from "./abort.js";
import { withDeadline } from "./deadline.js";

const context = { provider: "test", operation: "probe", defaultTimeoutMs: 1_000 };

describe("withDeadline", () => {
  test("returns the task's value", async () => {
    assert.equal(await withDeadline(undefined, context, async () => 42), 42);
  });

  test("rejects with DEADLINE_EXCEEDED and aborts the task's signal", async () => {
    let taskSignal: AbortSignal | undefined;
    const started = Date.now();
    await assert.rejects(
      withDeadline({ timeoutMs: 50 }, context, (signal) => {
        taskSignal = signal;
        return new Promise(() => {}); // a task that never settles and ignores its signal
      }),
      (error: unknown) => SandportError.hasCode(error, "DEADLINE_EXCEEDED") && error.details.timeoutMs === 50,
    );
    assert.ok(Date.now() - started < 1_000);
    assert.equal(taskSignal?.aborted, true);
  });

  test("uses the default deadline when none is given", async () => {
    await assert.rejects(
      withDeadline(undefined, { ...context, defaultTimeoutMs: 30 }, () => sleep(5_000)),
      (error: unknown) => SandportError.hasCode(error, "DEADLINE_EXCEEDED"),
    );
  });

  test("rejects promptly with ABORTED carrying the reason", async () => {
    const controller = new AbortController();
    const reason = new Error("user cancelled");
    setTimeout(() => controller.abort(reason), 20);
    const started = Date.now();
    await assert.rejects(
      withDeadline({ signal: controller.signal, timeoutMs: 10_000 }, context, () => new Promise(() => {})),
      (error: unknown) => SandportError.hasCode(error, "ABORTED") && error.cause === reason,
    );
    assert.ok(Date.now() - started < 1_000);
  });

  test("an already-aborted signal never starts the task", async () => {
    let ran = false;
    await assert.rejects(
      withDeadline({ signal: AbortSignal.abort() }, context, async () => {
        ran = true;
      }),
      (error: unknown) => SandportError.hasCode(error, "ABORTED"),
    );
    assert.equal(ran, false);
  });

  test("refuses an invalid timeout before starting", async () => {
    let ran = false;
    await assert.rejects(
      withDeadline({ timeoutMs: -1 }, context, async () => {
        ran = true;
      }),
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST"),
    );
    assert.equal(ran, false);
  });

  test("passes the task's own error through", async () => {
    const failure = new SandportError({ code: "NOT_FOUND", message: "gone" });
    await assert.rejects(
      withDeadline(undefined, context, async () => {
        throw failure;
      }),
      (error) => error === failure,
    );
  });
});
