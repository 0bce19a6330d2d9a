import { invalidRequest } from "../errors/factories.js";
import { keyList, refuseUnknownShape } from "../validation/known-keys.js";
import { refuseNonNumber, validateTimeoutMs } from "../validation/numbers.js";
import type { FleetClock } from "./fleet-clock.js";

/**
 * What a limiter reports, in order, for dashboards and logs: how long its
 * queue is, how long a call waited, and what the provider's rate limits did.
 * `inFlight` and `live` are the counts after the event. An event of a call
 * that a `SandboxOrchestrator` run or session made carries that run's `runId`
 * (the `runId` of its own events); a call no run made (a pool's refill or
 * health check, your own) carries none.
 */
export type LimiterEvent = LimiterEventBody & {
  /** The orchestrator run or session whose call this was, when one made it. */
  readonly runId?: string;
};

/** A {@link LimiterEvent} before the limiter stamps the run id of its call on it. */
export type LimiterEventBody =
  | {
      /** A launch found no free slot and waits in the queue. */
      readonly type: "queued";
      readonly operation: "launch" | "launchDetached" | "fork";
      readonly queueLength: number;
      readonly inFlight: number;
      readonly live: number;
    }
  | {
      /** A launch got its slot; `waitedMs` is its time in the queue (0 when it never queued). */
      readonly type: "admitted";
      readonly operation: "launch" | "launchDetached" | "fork";
      readonly waitedMs: number;
      readonly queueLength: number;
      readonly inFlight: number;
      readonly live: number;
    }
  | {
      /** A queued launch's deadline passed: it was refused with `DEADLINE_EXCEEDED` and nothing was launched. */
      readonly type: "queue-timeout";
      readonly operation: "launch" | "launchDetached" | "fork";
      readonly waitedMs: number;
      readonly queueLength: number;
    }
  | {
      /**
       * The provider answered `RATE_LIMITED`. `retrying`: the call is safe to
       * repeat and waits exactly `retryAfterMs` before attempt `attempt + 1`;
       * otherwise the error goes to the caller (a call that is not safe to
       * repeat, no `retryAfterMs`, no retries or deadline left).
       */
      readonly type: "rate-limited";
      readonly operation: string;
      readonly attempt: number;
      readonly retryAfterMs: number | undefined;
      readonly retrying: boolean;
    };

/** Options of {@link limitRuntime}. Every limit is optional; an absent one does not limit. */
export interface LimiterOptions {
  /** Launches (`launch`, `launchDetached`) running at once through the limiter. Default: no limit. */
  readonly maxLaunchesInFlight?: number;
  /**
   * Sandboxes alive at once: those launched through the limiter and not yet
   * destroyed through it, plus launches in flight. Default: no limit.
   */
  readonly maxLive?: number;
  /**
   * How long a launch may wait in the queue for a slot before it is refused
   * with `DEADLINE_EXCEEDED` (nothing launched). The call's own
   * `op.timeoutMs`, when shorter, bounds the wait too, and what is left of it
   * is passed on. Default 60 000.
   */
  readonly queueDeadlineMs?: number;
  /**
   * Retries after a `RATE_LIMITED` answer carrying `retryAfterMs`, per call,
   * for calls that are safe to repeat. Default 3; 0 never retries.
   */
  readonly rateLimitRetries?: number;
  /** Hears queueing, admissions and rate limits. An error it throws is contained (`limiterErrors`). */
  readonly onEvent?: (event: LimiterEvent) => void;
  /** Time, injectable for tests. Default: the system clock. */
  readonly clock?: FleetClock;
}

/** Every key of {@link LimiterOptions}; any other is refused. */
export const LIMITER_OPTION_KEYS = keyList<LimiterOptions>({
  maxLaunchesInFlight: true,
  maxLive: true,
  queueDeadlineMs: true,
  rateLimitRetries: true,
  onEvent: true,
  clock: true,
});

/** The limits as the limiter applies them. */
export interface ResolvedLimits {
  readonly maxLaunchesInFlight: number;
  readonly maxLive: number;
  readonly queueDeadlineMs: number;
  readonly rateLimitRetries: number;
}

/** Checks `options` (refusing with `INVALID_REQUEST`) and fills in the defaults. */
export function resolveLimits(options: unknown): ResolvedLimits {
  refuseUnknownShape(options, LIMITER_OPTION_KEYS, "limitRuntime options");
  const given = options as LimiterOptions;
  return {
    maxLaunchesInFlight: wholeCount(given.maxLaunchesInFlight, "maxLaunchesInFlight", 1) ?? Infinity,
    maxLive: wholeCount(given.maxLive, "maxLive", 1) ?? Infinity,
    queueDeadlineMs: validateTimeoutMs(given.queueDeadlineMs, "limitRuntime options.queueDeadlineMs") ?? 60_000,
    rateLimitRetries: wholeCount(given.rateLimitRetries, "rateLimitRetries", 0) ?? 3,
  };
}

/** An optional whole number of at least `minimum`, else `INVALID_REQUEST` naming `field`. */
export function wholeCount(value: unknown, field: string, minimum: number): number | undefined {
  if (value === undefined) return undefined;
  refuseNonNumber(value, field);
  if (!Number.isInteger(value) || value < minimum) {
    throw invalidRequest(`${field} must be a whole number ≥ ${minimum}, got ${String(value)}`, { field });
  }
  return value;
}
