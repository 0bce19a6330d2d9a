import { toSandportError } from "../errors/factories.js";
import type { SandportError } from "../errors/sandport-error.js";
import type { OpOptions } from "../port/op-options.js";
import { withDeadline } from "../timing/deadline.js";
import { validateOpOptions } from "../validation/requests.js";

/** What {@link runOperation} needs to know about one port method call. */
export interface OperationContext {
  /** Provider to name in errors. */
  readonly provider: string;
  /** The port method (`"launch"`, `"readFile"`, ...), for errors and logs. */
  readonly operation: string;
  /** Deadline in ms when the caller's `OpOptions.timeoutMs` is absent. */
  readonly defaultTimeoutMs: number;
  /**
   * Turns anything the task throws into a `SandportError` (a `SandportError`
   * passes through unchanged). Default: `toSandportError`, i.e. `UNEXPECTED`.
   */
  readonly mapError?: (error: unknown) => SandportError;
}

/** What the task of one operation gets: the signal to hand to every provider call, and its time budget. */
export interface OperationCall {
  /** Fires when the caller aborts or the deadline passes; pass it to every provider call. */
  readonly signal: AbortSignal;
  /** The whole deadline of this call in ms (the caller's `timeoutMs`, else the default). */
  readonly timeoutMs: number;
  /** Milliseconds left before the deadline (never negative): the `requestTimeoutMs` for the next SDK call. */
  remainingMs(): number;
}

/**
 * The one wrapper every port method of an adapter runs in. In order:
 * validates the per-call options (`INVALID_REQUEST` for a malformed `signal`
 * or `timeoutMs`, before the task starts, so nothing reaches the provider),
 * applies the deadline and the caller's signal (`DEADLINE_EXCEEDED`,
 * `ABORTED`), runs the task with the signal and its remaining budget, and maps
 * whatever it throws with `mapError`.
 *
 * ```ts
 * return runOperation(op, { provider, operation: "readFile", defaultTimeoutMs, mapError }, async (call) =>
 *   sdk.read(path, { signal: call.signal, requestTimeoutMs: call.remainingMs() }));
 * ```
 */
export function runOperation<T>(
  op: OpOptions | undefined,
  context: OperationContext,
  task: (call: OperationCall) => Promise<T>,
): Promise<T> {
  try {
    validateOpOptions(op, context.provider);
  } catch (error) {
    return Promise.reject(error);
  }
  const timeoutMs = op?.timeoutMs ?? context.defaultTimeoutMs;
  const mapError = context.mapError ?? ((error: unknown) => toSandportError(error, context.provider));
  return withDeadline(op, context, (signal) => {
    const deadline = performance.now() + timeoutMs;
    const call: OperationCall = {
      signal,
      timeoutMs,
      remainingMs: () => Math.max(0, Math.ceil(deadline - performance.now())),
    };
    let running: Promise<T>;
    try {
      running = task(call);
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.catch((error: unknown) => {
      throw mapError(error);
    });
  });
}
