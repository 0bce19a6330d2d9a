import { AsyncLocalStorage } from "node:async_hooks";
import type { ModalCallOptions, ModalMiddleware } from "./sdk-types.js";

/**
 * The deadline and signal of the port call on whose behalf the SDK is
 * working. The SDK's methods take neither, so {@link deadlineMiddleware}
 * (given to every client) finds them here and puts them on each
 * control-plane call the SDK makes while the scope is active.
 */
export interface CallScope {
  /** Milliseconds left before the deadline. */
  remainingMs(): number;
  /** Cancels the calls in flight (absent: only the deadline applies). */
  readonly signal?: AbortSignal;
  /**
   * How often the SDK may repeat a failed call, where it would repeat it by
   * itself. `0` for a create, whose lost answer must be reconciled by launch
   * key rather than sent again.
   */
  readonly retries?: number;
}

const scopes = new AsyncLocalStorage<CallScope>();

/** Runs `work` with `scope` applied to every control-plane call the SDK makes for it. */
export function inScope<T>(scope: CallScope, work: () => Promise<T>): Promise<T> {
  return scopes.run(scope, work);
}

/**
 * The gRPC middleware that puts the active {@link CallScope} on each
 * control-plane call: its remaining time as `timeoutMs` (the smaller of it and
 * the SDK's own), its signal, and its retry count where the SDK set none.
 * Outside a scope, calls pass unchanged. The SDK appends it after its own
 * middleware, which makes it the outermost: its deadline bounds the SDK's
 * retries too.
 */
export const deadlineMiddleware: ModalMiddleware = async function* deadline(call, options) {
  const scope = scopes.getStore();
  if (!scope) return yield* call.next(call.request, options);
  const remaining = Math.max(1, scope.remainingMs());
  const scoped: ModalCallOptions = {
    ...options,
    timeoutMs: options.timeoutMs === undefined ? remaining : Math.min(options.timeoutMs, remaining),
    ...(scope.signal === undefined
      ? {}
      : { signal: options.signal === undefined ? scope.signal : AbortSignal.any([options.signal, scope.signal]) }),
    ...(options.retries === undefined && scope.retries !== undefined ? { retries: scope.retries } : {}),
  };
  return yield* call.next(call.request, scoped);
};
