import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { keyList, refuseUnknownShape } from "../validation/known-keys.js";
import { refuseNonNumber } from "../validation/numbers.js";
import { sleep as abortableSleep, throwIfAborted } from "./abort.js";

/** How to retry. Every field has a default; the whole run is bounded by `budgetMs`. */
export interface RetryPolicy {
  /** Attempts in all, the first included. Default 4. */
  readonly maxAttempts?: number;
  /** Backoff before the second attempt, in ms. Default 200. */
  readonly initialDelayMs?: number;
  /** Ceiling for any one backoff, in ms. Default 5 000. */
  readonly maxDelayMs?: number;
  /** Growth factor between backoffs. Default 2. */
  readonly multiplier?: number;
  /** `full` jitter picks a delay uniformly in [0, backoff]; `none` waits the backoff exactly. Default `full`. */
  readonly jitter?: "full" | "none";
  /**
   * Absolute budget for all attempts and waits together, in ms from the first
   * attempt. No retry starts if its wait would end past it. Default 30 000.
   */
  readonly budgetMs?: number;
}

/** Every key of {@link RetryPolicy}; any other is refused by {@link validateRetryPolicy}. */
export const RETRY_POLICY_KEYS = keyList<RetryPolicy>({
  maxAttempts: true,
  initialDelayMs: true,
  maxDelayMs: true,
  multiplier: true,
  jitter: true,
  budgetMs: true,
});

/**
 * Refuses a retry policy with an unknown key, a count or duration that is not
 * a finite non-negative number (`maxAttempts` a whole number of at least 1,
 * `multiplier` at least 1), or an unknown `jitter`. `where` names the
 * policy in the message, e.g. `SandboxOrchestrator options retry`.
 */
export function validateRetryPolicy(policy: unknown, where: string): RetryPolicy | undefined {
  if (policy === undefined) return undefined;
  refuseUnknownShape(policy, RETRY_POLICY_KEYS, where);
  const given = policy as Record<keyof RetryPolicy, unknown>;
  for (const field of ["initialDelayMs", "maxDelayMs", "budgetMs"] as const) {
    const value = given[field];
    if (value === undefined) continue;
    refuseNonNumber(value, `${where}.${field}`);
    if (!Number.isFinite(value) || value < 0) {
      throw invalidRequest(`${where}.${field} must be a finite number of milliseconds ≥ 0, got ${value}`, { field });
    }
  }
  if (given.maxAttempts !== undefined) {
    refuseNonNumber(given.maxAttempts, `${where}.maxAttempts`);
    if (!Number.isInteger(given.maxAttempts) || given.maxAttempts < 1) {
      throw invalidRequest(`${where}.maxAttempts must be a whole number ≥ 1, got ${given.maxAttempts}`, {
        field: "maxAttempts",
      });
    }
  }
  if (given.multiplier !== undefined) {
    refuseNonNumber(given.multiplier, `${where}.multiplier`);
    if (!Number.isFinite(given.multiplier) || given.multiplier < 1) {
      throw invalidRequest(`${where}.multiplier must be a finite number ≥ 1, got ${given.multiplier}`, {
        field: "multiplier",
      });
    }
  }
  if (given.jitter !== undefined && given.jitter !== "full" && given.jitter !== "none") {
    throw invalidRequest(`${where}.jitter must be "full" or "none", got ${JSON.stringify(given.jitter)}`, {
      field: "jitter",
    });
  }
  return policy as RetryPolicy;
}

/** What a retried task learns about its attempt. */
export interface AttemptInfo {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Milliseconds left in the budget; pass it on as the attempt's own deadline. */
  readonly remainingMs: number;
}

/** Hooks and clock for {@link retry}. */
export interface RetryOptions {
  /** The policy; defaults as documented on {@link RetryPolicy}. */
  readonly policy?: RetryPolicy;
  /** Abort stops retrying at once with `ABORTED`. */
  readonly signal?: AbortSignal;
  /** Which errors to retry. Default: `SandportError`s marked `retryable`; nothing else. */
  readonly isRetryable?: (error: unknown) => boolean;
  /**
   * The provider's `Retry-After` of an error, in milliseconds, for errors that
   * are not (yet) `SandportError`s, such as a vendor SDK's raw error retried
   * before it is mapped. Default: `SandportError.retryAfterMs`.
   */
  readonly retryAfterMsOf?: (error: unknown) => number | undefined;
  /** Called before each wait, for logging. */
  readonly onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  /** Clock, injectable for tests. Default `Date.now`. */
  readonly now?: () => number;
  /** Random source in [0, 1), injectable for tests. Default `Math.random`. */
  readonly random?: () => number;
  /** Waiting, injectable for tests. Default: an abortable timer. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Default retry policy values. */
export const DEFAULT_RETRY_POLICY: Required<RetryPolicy> = {
  maxAttempts: 4,
  initialDelayMs: 200,
  maxDelayMs: 5_000,
  multiplier: 2,
  jitter: "full",
  budgetMs: 30_000,
};

/**
 * Runs `task` and retries it on retryable errors with exponential backoff and
 * jitter, honouring a provider's `Retry-After` (`SandportError.retryAfterMs`).
 * Never retries a non-retryable error, and never waits past the budget: the
 * last error is thrown instead.
 *
 * Only wrap operations that are safe to repeat (reads, lookups, idempotent deletes).
 */
export async function retry<T>(task: (info: AttemptInfo) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const wait = options.sleep ?? abortableSleep;
  const isRetryable = options.isRetryable ?? ((error: unknown) => SandportError.isInstance(error) && error.retryable);
  const deadline = now() + policy.budgetMs;

  for (let attempt = 1; ; attempt++) {
    throwIfAborted(options.signal);
    try {
      return await task({ attempt, remainingMs: Math.max(0, deadline - now()) });
    } catch (error) {
      if (attempt >= policy.maxAttempts || !isRetryable(error)) throw error;
      const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** (attempt - 1));
      const jittered = policy.jitter === "full" ? Math.floor(random() * backoff) : backoff;
      const retryAfter = options.retryAfterMsOf
        ? options.retryAfterMsOf(error)
        : SandportError.isInstance(error)
          ? error.retryAfterMs
          : undefined;
      const delayMs = retryAfter !== undefined ? Math.max(retryAfter, jittered) : jittered;
      if (now() + delayMs >= deadline) throw error;
      options.onRetry?.({ attempt, delayMs, error });
      await wait(delayMs, options.signal);
    }
  }
}
