// A hand-driven clock for this folder's tests. Not exported from the package.
import { abortError } from "../timing/abort.js";
import type { FleetClock } from "./fleet-clock.js";

interface Sleeper {
  readonly until: number;
  readonly resolve: () => void;
}

/**
 * Time moves only when the test says: `advance(ms)` wakes every sleep that is
 * due. `sleeps` records each wait asked for, so a test asserts the exact wait.
 */
export class ManualClock implements FleetClock {
  time = 0;
  /** Every `sleep(ms)` asked for, in order. */
  readonly sleeps: number[] = [];
  #sleepers: Sleeper[] = [];
  #onSleep: (() => void)[] = [];

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    for (const notify of this.#onSleep.splice(0)) notify();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      const sleeper: Sleeper = {
        until: this.time + ms,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.#sleepers = this.#sleepers.filter((other) => other !== sleeper);
        reject(abortError(signal as AbortSignal));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#sleepers.push(sleeper);
    });
  }

  /** Resolves once `count` sleeps in all have been asked for. */
  async sleepsAsked(count: number): Promise<void> {
    while (this.sleeps.length < count) await new Promise<void>((resolve) => this.#onSleep.push(resolve));
  }

  /** Moves time on and wakes every sleep now due. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.#sleepers.filter((sleeper) => sleeper.until <= this.time);
    this.#sleepers = this.#sleepers.filter((sleeper) => sleeper.until > this.time);
    for (const sleeper of due) sleeper.resolve();
  }
}

/** A clock whose sleeps end at once, moving time on by what was asked: for asserting exact waits. */
export class InstantClock implements FleetClock {
  time = 0;
  readonly sleeps: number[] = [];

  now(): number {
    return this.time;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortError(signal);
    this.sleeps.push(ms);
    this.time += ms;
  }
}
