import type { SandportError } from "../errors/sandport-error.js";
import { abortError } from "../timing/abort.js";
import type { FleetClock } from "./fleet-clock.js";

interface Waiter<T> {
  readonly resolve: (value: T) => void;
  readonly reject: (error: SandportError) => void;
}

/**
 * The `lease()` calls waiting for a sandbox, first come first served. Each
 * waits on the pool clock for its deadline and on its caller's signal; a
 * sandbox offered goes to the oldest, and one that gave up is gone from the
 * queue before anything could be handed to it.
 */
export class LeaseQueue<T> {
  readonly #waiters: Waiter<T>[] = [];
  readonly #clock: FleetClock;
  readonly #provider: string;

  constructor(clock: FleetClock, provider: string) {
    this.#clock = clock;
    this.#provider = provider;
  }

  /** Calls waiting. */
  get length(): number {
    return this.#waiters.length;
  }

  /**
   * Waits for {@link offer}, at most `remainingMs`: past it, rejects with
   * `expired()`; on `signal`, with `ABORTED`. Joins the queue synchronously.
   */
  wait(remainingMs: number, signal: AbortSignal | undefined, expired: () => SandportError): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortError(signal, this.#provider, "lease"));
    return new Promise<T>((resolve, reject) => {
      const stop = new AbortController();
      const onAbort = () => {
        if (leave()) reject(abortError(signal as AbortSignal, this.#provider, "lease"));
      };
      const settle = () => {
        stop.abort();
        signal?.removeEventListener("abort", onAbort);
      };
      const waiter: Waiter<T> = {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      const leave = (): boolean => {
        const index = this.#waiters.indexOf(waiter);
        if (index < 0) return false;
        this.#waiters.splice(index, 1);
        settle();
        return true;
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#clock.sleep(Math.max(0, remainingMs), stop.signal).then(
        () => {
          if (leave()) reject(expired());
        },
        () => {},
      );
    });
  }

  /** Hands `value` to the oldest waiter: false when none waits. */
  offer(value: T): boolean {
    const waiter = this.#waiters.shift();
    waiter?.resolve(value);
    return waiter !== undefined;
  }

  /** Rejects the oldest waiter with `error`, if any. */
  rejectOldest(error: SandportError): void {
    this.#waiters.shift()?.reject(error);
  }

  /** Rejects every waiter with `error()`. */
  rejectAll(error: () => SandportError): void {
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error());
  }
}
