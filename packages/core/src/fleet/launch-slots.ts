import { SandportError } from "../errors/sandport-error.js";
import { abortError } from "../timing/abort.js";
import type { FleetClock } from "./fleet-clock.js";
import type { LimiterEventBody, ResolvedLimits } from "./limiter-options.js";

type LaunchOperation = "launch" | "launchDetached" | "fork";

interface Waiter {
  readonly admit: () => void;
}

/**
 * The limiter's bookkeeping: launches in flight, live sandboxes, and a FIFO
 * queue of launches waiting for both. Only the queue's head is ever admitted,
 * so a launch cannot be overtaken by one that came later.
 */
export class LaunchSlots {
  #inFlight = 0;
  #live = 0;
  readonly #queue: Waiter[] = [];
  readonly #limits: ResolvedLimits;
  readonly #clock: FleetClock;
  readonly #emit: (event: LimiterEventBody) => void;
  readonly #provider: string;

  constructor(limits: ResolvedLimits, clock: FleetClock, emit: (event: LimiterEventBody) => void, provider: string) {
    this.#limits = limits;
    this.#clock = clock;
    this.#emit = emit;
    this.#provider = provider;
  }

  /** Launches in flight, sandboxes counted live, launches queued. */
  get load(): { readonly inFlight: number; readonly live: number; readonly queued: number } {
    return { inFlight: this.#inFlight, live: this.#live, queued: this.#queue.length };
  }

  /**
   * Waits for a launch slot (FIFO), at most `deadlineMs`; rejects with
   * `DEADLINE_EXCEEDED` (`details.sent: false`: nothing was launched) when it
   * passes, or `ABORTED` when `signal` fires. Resolves with the time waited.
   */
  async acquire(operation: LaunchOperation, deadlineMs: number, signal: AbortSignal | undefined): Promise<number> {
    if (signal?.aborted) throw abortError(signal, this.#provider, operation);
    const started = this.#clock.now();
    if (this.#queue.length === 0 && this.#free()) {
      this.#inFlight++;
      this.#admitted(operation, 0);
      return 0;
    }
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let waiter: Waiter | undefined;
    const admitted = new Promise<"admitted">((resolve) => {
      waiter = { admit: () => resolve("admitted") };
    });
    this.#queue.push(waiter as Waiter);
    this.#emit({ type: "queued", operation, queueLength: this.#queue.length, ...this.#counts() });
    const expired = this.#clock.sleep(deadlineMs, stop.signal).then(
      () => "expired" as const,
      () => "aborted" as const,
    );
    try {
      const outcome = await Promise.race([admitted, expired]);
      if (outcome === "admitted") {
        this.#admitted(operation, this.#clock.now() - started);
        return this.#clock.now() - started;
      }
      this.#leave(waiter as Waiter);
      const waitedMs = this.#clock.now() - started;
      if (outcome === "aborted") throw abortError(signal as AbortSignal, this.#provider, operation);
      this.#emit({ type: "queue-timeout", operation, waitedMs, queueLength: this.#queue.length });
      throw new SandportError({
        code: "DEADLINE_EXCEEDED",
        provider: this.#provider,
        retryable: true,
        message:
          `${operation} waited ${Math.round(waitedMs)} ms for a launch slot (deadline ${deadlineMs} ms; ` +
          `${this.#inFlight} in flight, ${this.#live} live) and was not sent: nothing was launched`,
        details: { operation, sent: false, queued: true, waitedMs, deadlineMs },
      });
    } finally {
      stop.abort();
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Ends a launch: `launched` counts its sandbox live until {@link destroyed}. */
  finish(launched: boolean): void {
    this.#inFlight--;
    if (launched) this.#live++;
    this.#pump();
  }

  /** A sandbox counted live was destroyed. */
  destroyed(): void {
    this.#live--;
    this.#pump();
  }

  #free(): boolean {
    return this.#inFlight < this.#limits.maxLaunchesInFlight && this.#inFlight + this.#live < this.#limits.maxLive;
  }

  #pump(): void {
    while (this.#queue.length > 0 && this.#free()) {
      const next = this.#queue.shift() as Waiter;
      this.#inFlight++;
      next.admit();
    }
  }

  #leave(waiter: Waiter): void {
    const index = this.#queue.indexOf(waiter);
    if (index >= 0) this.#queue.splice(index, 1);
    // A slot granted in the same turn as the deadline (or abort) is handed back.
    else {
      this.#inFlight--;
      this.#pump();
    }
  }

  #admitted(operation: LaunchOperation, waitedMs: number): void {
    this.#emit({ type: "admitted", operation, waitedMs, queueLength: this.#queue.length, ...this.#counts() });
  }

  #counts(): { inFlight: number; live: number } {
    return { inFlight: this.#inFlight, live: this.#live };
  }
}
