import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import {
  type ExecEvent,
  type ExecResult,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
  type SandportErrorCode,
} from "@sandport/core";

const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** UTF-8 byte length of a string. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Every byte value once, 0 to 255. */
export function allByteValues(): Uint8Array {
  return Uint8Array.from({ length: 256 }, (_, index) => index);
}

/** Wall-clock milliseconds since `start` (a `performance.now()` reading). */
export function since(start: number): number {
  return performance.now() - start;
}

export { delay };

/** The run budget of an endless producer (`yes`) that its output cap must stop. */
export const ENDLESS_BUDGET_MS = 20_000;

/**
 * How soon the cap must have stopped it: half its budget, so that it is the
 * cap, not the budget, that stopped it. How fast is a benchmark's question,
 * not a check's: a tighter bound failed checks on a loaded machine.
 */
export const CAP_STOP_BOUND_MS = ENDLESS_BUDGET_MS / 2;

/**
 * Runs `action` (which may throw synchronously or reject) and asserts it fails
 * with a `SandportError` whose code is one of `codes`. Returns the error.
 */
export async function expectCode(
  action: () => unknown,
  codes: SandportErrorCode | readonly SandportErrorCode[],
  what: string,
): Promise<SandportError> {
  const wanted: readonly SandportErrorCode[] = typeof codes === "string" ? [codes] : codes;
  let outcome: unknown;
  try {
    outcome = await action();
  } catch (error) {
    if (!SandportError.isInstance(error)) {
      assert.fail(`${what}: expected a SandportError ${wanted.join(" or ")}, got ${describeError(error)}`);
    }
    assert.ok(
      wanted.includes(error.code),
      `${what}: expected ${wanted.join(" or ")}, got ${error.code} (${error.message})`,
    );
    return error;
  }
  return assert.fail(`${what}: expected ${wanted.join(" or ")}, but it succeeded with ${preview(outcome)}`);
}

/** Asserts two byte arrays are equal, naming the first difference instead of dumping both. */
export function assertBytesEqual(actual: Uint8Array, expected: Uint8Array, what: string): void {
  const length = Math.min(actual.length, expected.length);
  for (let index = 0; index < length; index++) {
    if (actual[index] !== expected[index]) {
      assert.fail(`${what}: byte ${index} is ${actual[index]}, expected ${expected[index]}`);
    }
  }
  assert.equal(actual.length, expected.length, `${what}: length ${actual.length}, expected ${expected.length}`);
}

/** Reads a file as UTF-8 text. */
export async function readText<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
  path: string,
): Promise<string> {
  return Buffer.from(await runtime.readFile(handle, path)).toString("utf8");
}

/** Whether a file exists, by reading it: `NOT_FOUND` means no, anything else fails the test. */
export async function fileExists<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
  path: string,
): Promise<boolean> {
  try {
    await runtime.readFile(handle, path);
    return true;
  } catch (error) {
    if (SandportError.hasCode(error, "NOT_FOUND")) return false;
    throw error;
  }
}

/** Asserts a command exited 0, showing its output otherwise. Returns the result. */
export function assertSucceeded(result: ExecResult, what: string): ExecResult {
  assert.equal(
    result.exitCode,
    0,
    `${what}: exit ${result.exitCode}, timedOut ${result.timedOut}, stdout ${preview(result.stdout)}, stderr ${preview(result.stderr)}`,
  );
  return result;
}

/** Polls `read` until `done` accepts its value or `timeoutMs` passes (then fails, naming `what`). */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: { timeoutMs: number; intervalMs: number; what: string },
): Promise<T> {
  const start = performance.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (since(start) > options.timeoutMs) {
      assert.fail(`${options.what}: still ${preview(value)} after ${options.timeoutMs} ms`);
    }
    await delay(options.intervalMs);
  }
}

/** Name of the variable planted in the test process's environment to detect leaks. */
export const HOST_MARKER_NAME = "SANDPORT_CONFORMANCE_SECRET";

let markerUsers = 0;
let markerValue = "";
let markerPrevious: string | undefined;

/**
 * Sets {@link HOST_MARKER_NAME} to a fresh value in this process's environment
 * while `body` runs, and restores the previous value afterwards. Overlapping
 * calls (suites running concurrently in one process) share one value, and the
 * last to finish restores.
 */
export async function withHostEnvMarker<T>(body: (value: string) => Promise<T>): Promise<T> {
  if (markerUsers++ === 0) {
    markerPrevious = process.env[HOST_MARKER_NAME];
    markerValue = `leaked-${Math.random().toString(36).slice(2)}`;
    process.env[HOST_MARKER_NAME] = markerValue;
  }
  try {
    return await body(markerValue);
  } finally {
    if (--markerUsers === 0) {
      if (markerPrevious === undefined) delete process.env[HOST_MARKER_NAME];
      else process.env[HOST_MARKER_NAME] = markerPrevious;
    }
  }
}

/** Asserts that neither the marker's name nor its value appears in `output`. */
export function assertNoHostMarker(output: string, value: string, what: string): void {
  assert.ok(
    !output.includes(HOST_MARKER_NAME) && !output.includes(value),
    `${what}: the test process's ${HOST_MARKER_NAME} is visible inside the sandbox`,
  );
}

/** An event of a stream with the time it arrived (ms since the stream was opened). */
export interface TimedEvent {
  readonly event: ExecEvent;
  readonly atMs: number;
}

/** Drains an event stream (any error propagates), recording when each event arrived. */
export async function collectEvents(stream: () => AsyncIterable<ExecEvent>): Promise<TimedEvent[]> {
  const start = performance.now();
  const events: TimedEvent[] = [];
  for await (const event of stream()) events.push({ event, atMs: since(start) });
  return events;
}

/** A short printable form of a value for failure messages. */
export function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 300 ? `${text.slice(0, 300)}…(${text.length} chars)` : text;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return preview(error);
}
