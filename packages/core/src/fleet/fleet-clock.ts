import { sleep } from "../timing/abort.js";

/**
 * The time a pool or limiter reads and waits on. Injectable so a test can
 * move time on by hand and assert what a wait did, with no timed window.
 */
export interface FleetClock {
  /** Milliseconds on a monotonic scale (only differences are used). */
  now(): number;
  /** Resolves after `ms`, or rejects with `ABORTED` once `signal` fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `performance.now()` and an abortable timer. */
export const SYSTEM_CLOCK: FleetClock = Object.freeze({
  now: () => performance.now(),
  sleep,
});
