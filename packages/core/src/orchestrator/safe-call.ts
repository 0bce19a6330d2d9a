import { toSandportError } from "../errors/factories.js";
import type { SandportError } from "../errors/sandport-error.js";
import { type RetryPolicy, retry } from "../timing/retry.js";
import type { EmitEvent } from "./events.js";

/** Shared plumbing of a run or session: event emission and retries of safe calls. */
export interface CallContext {
  readonly provider: string;
  readonly retryPolicy: RetryPolicy | undefined;
  readonly emit: EmitEvent;
}

/**
 * Runs a call that is safe to repeat (read, lookup, idempotent write or delete)
 * with the retry policy, emitting a `retry` event before each wait. Errors come
 * out as `SandportError`s.
 */
export async function safeCall<T>(
  context: CallContext,
  operation: string,
  signal: AbortSignal | undefined,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await retry(() => call(), {
      policy: context.retryPolicy,
      signal,
      onRetry: ({ attempt, delayMs, error }) => context.emit({ type: "retry", operation, attempt, delayMs, error }),
    });
  } catch (error) {
    throw toSandportError(error, context.provider) as SandportError;
  }
}
