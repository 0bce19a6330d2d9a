import { SandportError } from "../errors/sandport-error.js";

/** The `ABORTED` error for a fired signal, carrying its reason as `cause`. */
export function abortError(signal: AbortSignal, provider?: string, operation?: string): SandportError {
  return new SandportError({
    code: "ABORTED",
    provider,
    message: `${operation ?? "operation"} was aborted`,
    cause: signal.reason,
    details: operation ? { operation } : undefined,
  });
}

/** Throws `ABORTED` if `signal` has fired. */
export function throwIfAborted(signal: AbortSignal | undefined, provider?: string, operation?: string): void {
  if (signal?.aborted) throw abortError(signal, provider, operation);
}

/** Resolves after `ms`, or rejects with `ABORTED` as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Resolves after `ms`, or rejects with the signal's own reason as soon as it
 * fires: for a wait inside a call whose signal carries why it ended (a call
 * budget's `DEADLINE_EXCEEDED`, the caller's `ABORTED`), which {@link sleep}
 * would replace with a plain `ABORTED`.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
