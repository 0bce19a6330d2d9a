import type { SandportErrorCode } from "../errors/error-code.js";
import { SandportError } from "../errors/sandport-error.js";
import { sleep } from "../timing/abort.js";
import type { BackgroundTasks } from "./background-tasks.js";

/**
 * Waits between the searches for the sandbox a create with an unknown outcome
 * may have produced: doubling from 250 ms, then every 4 s, until the listing
 * can be trusted ({@link LISTING_TRUSTED_AFTER_MS}) or the cleanup budget ends.
 */
export const ORPHAN_SEARCH_DELAYS_MS: readonly number[] = Object.freeze([250, 500, 1_000, 2_000, 4_000]);

/**
 * How long after a create's request ended (answered, cut or lost) the
 * sandbox it may have made can still be missing from the provider's listing.
 * A search that finds nothing after this long is trusted: nothing was made.
 */
export const LISTING_TRUSTED_AFTER_MS = 5_000;

/** A launch that failed after its create request was sent. */
export interface AbandonedLaunch<Created> {
  /** The create call, which may still be in flight. */
  readonly creation: Promise<Created>;
  /** The sandbox id of what the create produced. */
  readonly idOf: (created: Created) => string;
  /** The launch's key, stored with the sandbox, by which an unanswered create is found. */
  readonly launchKey: string;
  /** Why the launch failed (as the caller was told). */
  readonly error: SandportError;
  /** Whether the create had resolved before the launch failed (a later step failed). */
  readonly created: boolean;
  /** Destroys one of our sandboxes by id. */
  readonly destroy: (sandboxId: string) => Promise<void>;
  /** Ids of our sandboxes carrying `launchKey`. */
  readonly findByLaunchKey: (launchKey: string) => Promise<readonly string[]>;
  /**
   * Whether a failed create may have created anyway: the adapter's
   * `ErrorMapper.outcomeUnknown`, which knows its transport (gRPC statuses,
   * HTTP statuses, fetch failures).
   */
  readonly outcomeUnknown: (createError: unknown) => boolean;
  /** Launch keys being destroyed in the background: the adapter's `findByLabels` hides their sandboxes. */
  readonly condemned: Set<string>;
  /** Where the cleanup runs. */
  readonly background: BackgroundTasks;
  /** How long the cleanup may take in all, in ms. */
  readonly cleanupMs: number;
  /** Override of {@link LISTING_TRUSTED_AFTER_MS} for a provider whose listing lags more (or less). */
  readonly listingTrustedAfterMs?: number;
}

/** How the background cleanup of one failed launch ended (see {@link launchReclaimOf}). */
export interface LaunchReclaimReport {
  /** The launch key searched for or destroyed. */
  readonly launchKey: string;
  /**
   * `destroyed`: what the create made is gone; `none`: the create provably
   * made nothing (it failed with a known outcome, or the listing, once
   * trusted, showed nothing); `failed`: a sandbox may have leaked (see `error`).
   */
  readonly outcome: "destroyed" | "none" | "failed";
  /** Ids destroyed. */
  readonly destroyed: readonly string[];
  /** Why the cleanup failed (also reported to `onBackgroundError` and by `settle()`). */
  readonly error?: SandportError;
}

/** Where a failed launch's error keeps its background cleanup: shared by every copy of this package. */
const RECLAIM = Symbol.for("sandport.launch-reclaim");

/**
 * The background cleanup started for the launch that failed with `error`
 * ({@link reclaimAbandonedLaunch}), or `undefined` when none runs. The
 * orchestrator waits on it before a workload returns and reports what is
 * unfinished or failed as `possibleLeak`.
 */
export function launchReclaimOf(error: unknown): Promise<LaunchReclaimReport> | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  return (error as { [RECLAIM]?: Promise<LaunchReclaimReport> })[RECLAIM];
}

/**
 * After a launch failed with its create request sent: destroys, in the
 * background, whatever the create produced, and hangs the cleanup on the
 * launch's error ({@link launchReclaimOf}).
 *
 * - The create had resolved (a later step failed): its sandbox is destroyed.
 * - The caller gave up (`ABORTED`, `DEADLINE_EXCEEDED`) while the create was
 *   in flight: the create is left to finish; what it made is destroyed, and
 *   when it fails with an unknown outcome, it is searched for.
 * - The create failed with an unknown outcome (`details.outcomeUnknown`):
 *   it is searched for.
 *
 * The search by launch key runs with backoff ({@link ORPHAN_SEARCH_DELAYS_MS})
 * until it finds the sandbox (destroyed), or until the listing can be trusted
 * ({@link LISTING_TRUSTED_AFTER_MS} after the create ended) and shows none;
 * a budget that runs out first is a failure naming the launch key, with
 * `possibleLeak`. A create that failed with a known outcome made nothing.
 * When the caller gave up or a later step failed, the launch key is
 * `condemned` until the cleanup ends, so nobody adopts what is being
 * destroyed; a caller told that its create's outcome is unknown can still
 * find the sandbox by launch key (destroying it too is harmless: a destroy
 * of what is gone resolves).
 */
export function reclaimAbandonedLaunch<Created>(launch: AbandonedLaunch<Created>): void {
  const { launchKey, condemned, error } = launch;
  const callerGaveUp = error.code === "ABORTED" || error.code === "DEADLINE_EXCEEDED";
  const createUnknown = error.details.launchKey === launchKey && error.details.outcomeUnknown === true;
  if (!callerGaveUp && !launch.created && !createUnknown) return;
  // A caller that gave up, or whose launch failed after the create, gets no handle to reconcile with: the key is
  // hidden. One told that its create's outcome is unknown may still look for the sandbox by launch key itself.
  const hidden = callerGaveUp || launch.created;
  if (hidden) condemned.add(launchKey);
  let report: (value: LaunchReclaimReport) => void = () => {};
  const reported = new Promise<LaunchReclaimReport>((resolve) => {
    report = resolve;
  });
  Object.defineProperty(error, RECLAIM, { value: reported, enumerable: false, configurable: true });
  launch.background.track(async () => {
    const until = Date.now() + launch.cleanupMs;
    try {
      let created: Created;
      try {
        created = await launch.creation;
      } catch (createError) {
        if (!launch.outcomeUnknown(createError)) {
          report({ launchKey, outcome: "none", destroyed: [] });
          return;
        }
        const destroyed = await searchAndDestroy(launch, until);
        report({ launchKey, outcome: destroyed.length > 0 ? "destroyed" : "none", destroyed });
        return;
      }
      const sandboxId = launch.idOf(created);
      await destroyWithin(launch, sandboxId, until);
      report({ launchKey, outcome: "destroyed", destroyed: [sandboxId] });
    } catch (failure) {
      const wrapped = possibleLeak(launch, failure);
      report({ launchKey, outcome: "failed", destroyed: [], error: wrapped });
      throw wrapped;
    } finally {
      if (hidden) condemned.delete(launchKey);
    }
  });
}

/**
 * Searches by launch key with backoff until a sandbox turns up (destroyed,
 * its ids returned) or the listing can be trusted to show none (`[]`).
 * Throws when the budget `until` ends first, with the last search's failure.
 */
async function searchAndDestroy<Created>(launch: AbandonedLaunch<Created>, until: number): Promise<string[]> {
  const trustedAt = Date.now() + (launch.listingTrustedAfterMs ?? LISTING_TRUSTED_AFTER_MS);
  let lastFailure: unknown;
  for (let attempt = 0; ; attempt++) {
    try {
      const found = await launch.findByLaunchKey(launch.launchKey);
      if (found.length > 0) {
        for (const sandboxId of found) await destroyWithin(launch, sandboxId, until);
        return [...found];
      }
      lastFailure = undefined;
      if (Date.now() >= trustedAt) return [];
    } catch (searchError) {
      lastFailure = searchError;
    }
    const backoff = ORPHAN_SEARCH_DELAYS_MS[Math.min(attempt, ORPHAN_SEARCH_DELAYS_MS.length - 1)] ?? 0;
    // The last search is the one at the moment the listing can be trusted.
    const wait = lastFailure === undefined ? Math.min(backoff, Math.max(0, trustedAt - Date.now())) : backoff;
    if (Date.now() + wait >= until) {
      throw new SandportError({
        code: "DEADLINE_EXCEEDED",
        message: `the cleanup budget ended before the listing could be trusted to show the sandbox of launch key ${launch.launchKey}`,
        ...(lastFailure === undefined ? {} : { cause: lastFailure }),
      });
    }
    await sleep(wait);
  }
}

/** Destroy failures that a repeat cannot change: credentials, ownership, a request or SDK the provider refuses. */
const FINAL_DESTROY_FAILURES: ReadonlySet<SandportErrorCode> = new Set([
  "AUTH",
  "FOREIGN_SANDBOX",
  "INVALID_REQUEST",
  "UNSUPPORTED",
  "SDK_UNAVAILABLE",
]);

/**
 * Destroys one sandbox, repeating a failed delete (a 429, a dropped
 * connection, a 5xx) with backoff, or after the provider's `retryAfterMs`,
 * until the budget `until` ends; a destroy of what is already gone resolves,
 * so repeating it is safe, even after its own deadline. A refusal no repeat
 * can change ({@link FINAL_DESTROY_FAILURES}) is not repeated. Throws the
 * last failure.
 */
async function destroyWithin<Created>(
  launch: AbandonedLaunch<Created>,
  sandboxId: string,
  until: number,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await launch.destroy(sandboxId);
      return;
    } catch (failure) {
      if (SandportError.isInstance(failure) && FINAL_DESTROY_FAILURES.has(failure.code)) throw failure;
      const backoff = ORPHAN_SEARCH_DELAYS_MS[Math.min(attempt, ORPHAN_SEARCH_DELAYS_MS.length - 1)] ?? 0;
      const retryAfterMs = SandportError.isInstance(failure) ? failure.retryAfterMs : undefined;
      const wait = Math.max(backoff, retryAfterMs ?? 0);
      if (Date.now() + wait >= until) throw failure;
      await sleep(wait);
    }
  }
}

/** A cleanup that could not finish: a sandbox may have leaked under this launch key. */
function possibleLeak<Created>(launch: AbandonedLaunch<Created>, failure: unknown): SandportError {
  const known = SandportError.isInstance(failure) ? failure : undefined;
  return new SandportError({
    code: known?.code ?? "UNEXPECTED",
    ...(launch.error.provider === undefined ? {} : { provider: launch.error.provider }),
    retryable: false,
    message: `background cleanup of launch key ${launch.launchKey} did not finish, a sandbox may have leaked: ${
      failure instanceof Error ? failure.message : String(failure)
    }`,
    cause: failure,
    details: { launchKey: launch.launchKey, possibleLeak: true },
  });
}

/** What stays the same across one runtime's launches: how to find and destroy, and where the cleanup runs. */
export type LaunchReclaimSettings = Pick<
  AbandonedLaunch<unknown>,
  "destroy" | "findByLaunchKey" | "outcomeUnknown" | "condemned" | "background" | "cleanupMs" | "listingTrustedAfterMs"
>;

/** One abandoned launch's own facts: its create, its key, and how it failed. */
export type AbandonedCreate<Created> = Omit<AbandonedLaunch<Created>, keyof LaunchReclaimSettings>;

/** How {@link launchFailure} words a failed create. */
export interface LaunchFailureOptions {
  /** Whether the sandbox may exist anyway: the adapter's `ErrorMapper.outcomeUnknown` of the create's error. */
  readonly outcomeUnknown: boolean;
  /** Said after the message when the outcome is known (e.g. why the provider refused). */
  readonly hint?: string | undefined;
}

/**
 * The error of a failed create, for the caller: `mapped` (what the adapter's
 * mapper made of `error`, which stays the cause) with the launch key and
 * whether the sandbox may exist anyway in its details, and, when it may, the
 * message saying that it is being searched for under that launch key (else
 * the `hint`).
 */
export function launchFailure(
  error: unknown,
  mapped: SandportError,
  launchKey: string,
  options: LaunchFailureOptions,
): SandportError {
  const { outcomeUnknown } = options;
  const note = outcomeUnknown
    ? ` (the sandbox may exist anyway: search launch key ${launchKey}; it is searched for and destroyed in the background, settle() waits for that)`
    : options.hint === undefined
      ? ""
      : ` (${options.hint})`;
  return new SandportError({
    code: mapped.code,
    provider: mapped.provider,
    retryable: mapped.retryable,
    ...(mapped.retryAfterMs === undefined ? {} : { retryAfterMs: mapped.retryAfterMs }),
    cause: error,
    message: `${mapped.message}${note}`,
    details: { ...mapped.details, launchKey, outcomeUnknown },
  });
}
