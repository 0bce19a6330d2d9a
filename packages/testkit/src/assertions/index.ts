/**
 * @sandport/testkit/assertions: the few assertions every Sandport test needs,
 * written once: an expected error code, waiting for a condition, a delay, a
 * free TCP port.
 *
 * @module
 */

import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { SandportError, type SandportErrorCode } from "@sandport/core";

export { unusedPort } from "./unused-port.js";
export { delay };

/**
 * Runs `action` (a promise, or a function that may throw or reject) and
 * asserts it fails with a `SandportError` whose code is one of `codes`.
 * Returns the error, for further checks.
 */
export async function expectCode(
  action: Promise<unknown> | (() => unknown),
  codes: SandportErrorCode | readonly SandportErrorCode[],
  what = "the call",
): Promise<SandportError> {
  const wanted: readonly SandportErrorCode[] = typeof codes === "string" ? [codes] : codes;
  let outcome: unknown;
  try {
    outcome = await (typeof action === "function" ? action() : action);
  } catch (error) {
    if (!SandportError.isInstance(error)) {
      return assert.fail(`${what}: expected a SandportError ${wanted.join(" or ")}, got ${String(error)}`);
    }
    assert.ok(
      wanted.includes(error.code),
      `${what}: expected ${wanted.join(" or ")}, got ${error.code} (${error.message})`,
    );
    return error;
  }
  return assert.fail(`${what}: expected ${wanted.join(" or ")}, but it succeeded with ${String(outcome)}`);
}

/**
 * Polls `predicate` every `intervalMs` (default 20) until it returns a truthy
 * value, which it returns; fails the test naming `what` after `timeoutMs`
 * (default 5 000).
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  options: { readonly timeoutMs?: number; readonly intervalMs?: number; readonly what?: string } = {},
): Promise<NonNullable<T>> {
  const until = Date.now() + (options.timeoutMs ?? 5_000);
  for (;;) {
    const value = await predicate();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) assert.fail(`timed out waiting for ${options.what ?? "a condition"}`);
    await delay(options.intervalMs ?? 20);
  }
}

/**
 * Compile-time equality of two types (`true` or `false`), for type tests:
 * `Holds<Exactly<keyof FrameworkType, "a" | "b">>` stops compiling when the
 * framework adds or removes a member.
 */
export type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compiles only when `T` is `true`: the assertion of a compile-time check. */
export type Holds<T extends true> = T;
