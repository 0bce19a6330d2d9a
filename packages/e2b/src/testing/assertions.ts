// Small assertions shared by this package's tests. Not exported from the package.
import assert from "node:assert/strict";
import { SandportError, type SandportErrorCode } from "@sandport/core";

/** Awaits `work`, expecting a `SandportError` with `code`; returns it. */
export async function rejectsWithCode(
  work: Promise<unknown> | (() => Promise<unknown>),
  code: SandportErrorCode,
): Promise<SandportError> {
  try {
    await (typeof work === "function" ? work() : work);
  } catch (error) {
    assert.ok(SandportError.isInstance(error), `expected a SandportError, got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`);
    return error;
  }
  assert.fail(`expected a rejection with ${code}, but it resolved`);
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
  what = "condition",
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await delay(20);
  }
}
