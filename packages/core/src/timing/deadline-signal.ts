/**
 * A signal that aborts once `timeoutMs` has passed, with a `TimeoutError`
 * `DOMException` as `AbortSignal.timeout`'s, or as soon as one of `signals`
 * aborts, with its reason: whichever comes first.
 *
 * Use it for `AbortSignal.any([signal, AbortSignal.timeout(ms)])`. On Node 20
 * that composite is held only weakly, by its sources and by the timeout's
 * timer, so when nothing else keeps it (a `fetch` in flight does not, nor do
 * the composite's own listeners) a garbage collection can take it before it
 * fires, and the deadline is then never kept. This signal is held by its
 * timer and by its sources' listeners until it aborts, when both are
 * released. Its timer does not keep the process alive.
 */
export function deadlineSignal(timeoutMs: number, ...signals: readonly (AbortSignal | undefined)[]): AbortSignal {
  const controller = new AbortController();
  const sources = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const fired = sources.find((signal) => signal.aborted);
  if (fired) {
    controller.abort(fired.reason);
    return controller.signal;
  }
  const listeners = sources.map((source) => {
    const listener = () => end(source.reason);
    source.addEventListener("abort", listener, { once: true });
    return { source, listener };
  });
  const timer = setTimeout(
    () => end(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    Math.max(0, timeoutMs),
  );
  timer.unref?.();
  function end(reason: unknown): void {
    clearTimeout(timer);
    for (const { source, listener } of listeners) source.removeEventListener("abort", listener);
    controller.abort(reason);
  }
  return controller.signal;
}
