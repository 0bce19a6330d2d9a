import { SandportError } from "../errors/sandport-error.js";
import type { OpOptions } from "../port/op-options.js";
import { validateTimeoutMs } from "../validation/numbers.js";
import { abortError } from "./abort.js";

/** What {@link withDeadline} needs to know about the call it guards. */
export interface DeadlineContext {
  /** Provider to name in errors. */
  readonly provider: string;
  /** Operation name for errors and logs (`"launch"`, `"exec"`, ...). */
  readonly operation: string;
  /** Deadline used when `op.timeoutMs` is absent. Every call has one. */
  readonly defaultTimeoutMs: number;
}

/**
 * Runs `task` under a deadline and the caller's abort signal.
 *
 * `task` receives a signal that fires on either; pass it to the provider call
 * so the work stops too. The returned promise settles promptly when either
 * fires, even if `task` ignores its signal: with `DEADLINE_EXCEEDED` (the
 * outcome of a mutating call is then unknown) or `ABORTED` (the reason is the `cause`).
 */
export async function withDeadline<T>(
  op: OpOptions | undefined,
  context: DeadlineContext,
  task: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const timeoutMs =
    validateTimeoutMs(op?.timeoutMs, `${context.operation} timeoutMs`, context.provider) ?? context.defaultTimeoutMs;
  const callerSignal = op?.signal;
  if (callerSignal?.aborted) throw abortError(callerSignal, context.provider, context.operation);

  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onCallerAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new SandportError({
        code: "DEADLINE_EXCEEDED",
        provider: context.provider,
        message: `${context.operation} did not finish within ${timeoutMs} ms`,
        details: { operation: context.operation, timeoutMs },
      });
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    if (callerSignal) {
      onCallerAbort = () => {
        const error = abortError(callerSignal, context.provider, context.operation);
        controller.abort(error);
        reject(error);
      };
      callerSignal.addEventListener("abort", onCallerAbort, { once: true });
    }
  });
  const work = task(controller.signal);
  // Once the deadline wins, a late rejection of the abandoned task must not surface as unhandled.
  work.catch(() => {});
  try {
    return await Promise.race([work, stopped]);
  } finally {
    clearTimeout(timer);
    if (onCallerAbort) callerSignal?.removeEventListener("abort", onCallerAbort);
  }
}
