import { sleep } from "../timing/abort.js";

/** Waits between checks that a deleted sandbox is gone. */
export const CONFIRM_GONE_DELAYS_MS: readonly number[] = Object.freeze([0, 250, 500, 1_000, 2_000, 4_000]);

/** How {@link confirmGone} checks. */
export interface ConfirmGoneOptions {
  /** When to give up (epoch ms): no check starts whose wait would end past it. */
  readonly until: number;
  /** Waits before each check. Default {@link CONFIRM_GONE_DELAYS_MS}. */
  readonly delaysMs?: readonly number[];
  /** Stops waiting with `ABORTED`. */
  readonly signal?: AbortSignal;
}

/** What {@link confirmGone} found. */
export type GoneVerdict =
  | { readonly gone: true }
  | {
      readonly gone: false;
      /** What the last check saw: the sandbox still there (`still-present`) or a failed check (`check-failed`). */
      readonly reason: "still-present" | "check-failed";
      /** The last thing the probe returned or threw. */
      readonly last: unknown;
    };

/**
 * Proves a deleted sandbox gone by asking until the provider says so.
 * `probe` resolves `true` while the sandbox is still there, `false` once it
 * is absent (its not-found), and throws when it cannot tell. Resolves with the
 * verdict; the adapter turns `gone: false` into `destroyUnverified`.
 */
export async function confirmGone(probe: () => Promise<boolean>, options: ConfirmGoneOptions): Promise<GoneVerdict> {
  let last: unknown;
  let reason: "still-present" | "check-failed" = "still-present";
  for (const delay of options.delaysMs ?? CONFIRM_GONE_DELAYS_MS) {
    if (Date.now() + delay >= options.until) break;
    await sleep(delay, options.signal);
    // A wait that ended late (a busy event loop) starts no check past `until`: the caller's deadline is near.
    if (Date.now() >= options.until) break;
    try {
      if (!(await probe())) return { gone: true };
      reason = "still-present";
      last = undefined;
    } catch (error) {
      reason = "check-failed";
      last = error;
    }
  }
  return { gone: false, reason, last };
}
