import { SandportError } from "../errors/sandport-error.js";
import { sleep } from "../timing/abort.js";
import type { BackgroundTasks } from "./background-tasks.js";
import { httpStatusOf, isConnectionLost } from "./http-errors.js";

/** Waits before each search for the sandbox an abandoned create may still produce. */
export const ORPHAN_SEARCH_DELAYS_MS: readonly number[] = Object.freeze([0, 1_000, 3_000]);

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
  /** Launch keys being destroyed in the background: the adapter's `findByLabels` hides their sandboxes. */
  readonly condemned: Set<string>;
  /** Where the cleanup runs. */
  readonly background: BackgroundTasks;
  /** How long the cleanup may take in all, in ms. */
  readonly cleanupMs: number;
}

/**
 * After a launch failed with its create request sent: destroys, in the
 * background, whatever the create produced. When the caller gave up first
 * (`ABORTED`, `DEADLINE_EXCEEDED`) the create is left to finish and its
 * sandbox destroyed, or, when the create itself failed with an unknown
 * outcome, searched for by launch key (a few times: it may still be in
 * flight). A create that failed outright while the caller still waited is
 * left alone: the caller got the error and reconciles by launch key, as the
 * orchestrator does. Until the cleanup ends, the launch key is `condemned`,
 * so a reconciling caller can never adopt what is being destroyed.
 */
export function reclaimAbandonedLaunch<Created>(launch: AbandonedLaunch<Created>): void {
  const { launchKey, condemned } = launch;
  const callerGaveUp = launch.error.code === "ABORTED" || launch.error.code === "DEADLINE_EXCEEDED";
  if (callerGaveUp || launch.created) condemned.add(launchKey);
  launch.background.track(async () => {
    const until = Date.now() + launch.cleanupMs;
    try {
      let created: Created;
      try {
        created = await launch.creation;
      } catch (createError) {
        if (!callerGaveUp || !isOutcomeUnknown(createError)) return;
        for (const delay of ORPHAN_SEARCH_DELAYS_MS) {
          if (Date.now() + delay >= until) return;
          await sleep(delay);
          const found = await launch.findByLaunchKey(launchKey);
          for (const sandboxId of found) await launch.destroy(sandboxId);
          if (found.length > 0) return;
        }
        return;
      }
      await launch.destroy(launch.idOf(created));
    } finally {
      condemned.delete(launchKey);
    }
  });
}

/** What stays the same across one runtime's launches: how to find and destroy, and where the cleanup runs. */
export type LaunchReclaimSettings = Pick<
  AbandonedLaunch<unknown>,
  "destroy" | "findByLaunchKey" | "condemned" | "background" | "cleanupMs"
>;

/** One abandoned launch's own facts: its create, its key, and how it failed. */
export type AbandonedCreate<Created> = Omit<AbandonedLaunch<Created>, keyof LaunchReclaimSettings>;

/** {@link reclaimAbandonedLaunch} with a runtime's settings bound once, for its launches to call. */
export function launchReclaimer(settings: LaunchReclaimSettings): <Created>(launch: AbandonedCreate<Created>) => void {
  return (launch) => reclaimAbandonedLaunch({ ...launch, ...settings });
}

/**
 * True when a failed create may still have created a sandbox: a dropped
 * connection, a deadline, or a 5xx other than 503 (which says the request was
 * refused). Errors the adapter mapped carry the status in their details.
 */
export function isOutcomeUnknown(error: unknown): boolean {
  const status = httpStatusOf(error) ?? statusFromDetails(error);
  if (status !== undefined) return status >= 500 && status !== 503;
  if (isConnectionLost(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  return (
    code === "DEADLINE_EXCEEDED" ||
    code === "PROVIDER_UNAVAILABLE" ||
    code === "UNEXPECTED" ||
    name === "TimeoutError" ||
    name === "AbortError"
  );
}

function statusFromDetails(error: unknown): number | undefined {
  const status = (error as { details?: { status?: unknown } } | null)?.details?.status;
  return typeof status === "number" ? status : undefined;
}

/** How {@link launchFailure} words a failed create. */
export interface LaunchFailureOptions {
  /** Whether the sandbox may exist anyway. Default: {@link isOutcomeUnknown} of the mapped error; the adapter may know better. */
  readonly outcomeUnknown?: boolean | undefined;
  /** Said after the message when the outcome is known (e.g. why the provider refused). */
  readonly hint?: string | undefined;
}

/**
 * The error of a failed create, for the caller: `mapped` (what the adapter's
 * mapper made of `error`, which stays the cause) with the launch key and
 * whether the sandbox may exist anyway in its details, and, when it may, the
 * message saying under which launch key to look for it (else the `hint`).
 */
export function launchFailure(
  error: unknown,
  mapped: SandportError,
  launchKey: string,
  options: LaunchFailureOptions = {},
): SandportError {
  const outcomeUnknown = options.outcomeUnknown ?? isOutcomeUnknown(mapped);
  const note = outcomeUnknown
    ? ` (the sandbox may exist anyway: search launch key ${launchKey})`
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
