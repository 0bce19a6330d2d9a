import assert from "node:assert/strict";
import { SandportError, type SandportErrorCode } from "@sandport/core";

/** How a bounded call ended. */
export type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/**
 * Waits for `call`, failing the test if it has not settled within `boundMs`: a call that waits on a
 * dropped or slow request past its deadline hangs its caller, which is what this catches.
 */
export async function settleWithin<T>(call: Promise<T>, boundMs: number, what: string): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), boundMs);
  });
  const outcome = await Promise.race([
    call.then(
      (value): Settled<T> => ({ ok: true, value }),
      (error: unknown): Settled<T> => ({ ok: false, error }),
    ),
    hung,
  ]);
  clearTimeout(timer);
  if (outcome === "hung") return assert.fail(`${what} hung: not settled ${boundMs} ms after it was called`);
  return outcome;
}

/**
 * Asserts `error` is typed: a `SandportError` whose code is not `UNEXPECTED` (a vendor transport
 * failure must say what it is, so a caller can tell a retry from a bug). Returns it.
 */
export function assertTyped(error: unknown, what: string): SandportError {
  if (!SandportError.isInstance(error)) {
    return assert.fail(`${what}: not a SandportError: ${describe(error)}`);
  }
  assert.notEqual(error.code, "UNEXPECTED", `${what}: an untyped (UNEXPECTED) error: ${error.message}`);
  return error;
}

/** Asserts the call failed with a typed error, of one of `codes` when given. Returns the error. */
export function expectTypedFailure<T>(
  outcome: Settled<T>,
  what: string,
  codes?: readonly SandportErrorCode[],
): SandportError {
  if (outcome.ok) return assert.fail(`${what}: expected a typed failure, but it succeeded`);
  const error = assertTyped(outcome.error, what);
  if (codes) assert.ok(codes.includes(error.code), `${what}: expected ${codes.join(" or ")}, got ${error.code}`);
  return error;
}

/** True when `error` or one of its causes says a sandbox may have been left behind. */
export function reportsPossibleLeak(error: unknown): boolean {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 8; depth++) {
    if (SandportError.isInstance(at) && at.details.possibleLeak === true) return true;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
