import { type OpOptions, retry } from "@sandport/core";
import { confirmGone, destroyUnverified, sandboxNotFound } from "@sandport/core/adapter";
import { type CallTiming, type DaytonaContext, seconds } from "./context.js";
import { isNotFound, mapDaytonaError, statusOf } from "./errors.js";
import { PROVIDER } from "./handle.js";

/** Time kept back from the destroy deadline, so an unverified destroy reports itself and not a bare deadline. */
const VERIFY_MARGIN_MS = 250;
/**
 * Retries of a delete: it is idempotent, and Daytona refuses one (400/409)
 * while a state change (a start, a stop) is still settling.
 */
const DELETE_RETRY = { maxAttempts: 6, initialDelayMs: 250, maxDelayMs: 2_000 } as const;

/**
 * Destroys a sandbox and resolves once it is verified gone: `DELETE`, then
 * `GET` until Daytona reports it not found or destroyed (`confirmGone`). A
 * sandbox that is already absent counts as destroyed. A sandbox this runtime
 * has not seen is checked for our ownership label first (`FOREIGN_SANDBOX`
 * otherwise). When absence cannot be shown before the deadline, rejects
 * `DESTROY_UNVERIFIED` (retryable).
 */
export function destroy(context: DaytonaContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "destroy", context.options.timeouts.destroyMs, async (sandboxId, call) => {
    if (!context.known.isOwned(sandboxId) && !(await context.ownedRecord(sandboxId, "destroy", call))) {
      context.forget(sandboxId);
      return;
    }
    if (!(await deleteSandbox(context, sandboxId, call))) return;
    const verdict = await confirmGone(async () => (await context.record(sandboxId, "destroy", call)) !== undefined, {
      until: Date.now() + call.remainingMs() - VERIFY_MARGIN_MS,
      signal: call.signal,
    });
    if (verdict.gone) return context.forget(sandboxId);
    const why = verdict.reason === "still-present" ? "it was still listed after the delete" : "the check failed";
    throw destroyUnverified(PROVIDER, sandboxId, why, verdict.last);
  });
}

/**
 * One `DELETE /api/sandbox/{id}` of a sandbox known to be ours (retried while
 * Daytona refuses it for a state change in progress, or on 429/5xx); resolves
 * whether it was there. Shared with the cleanup of abandoned launches and replaced sandboxes.
 */
export async function deleteSandbox(context: DaytonaContext, sandboxId: string, timing: CallTiming): Promise<boolean> {
  const api = await context.api();
  const site = { operation: "destroy", sandboxId };
  let found: boolean;
  try {
    await retry(
      async () => {
        try {
          await api.deleteSandbox(sandboxId, undefined, context.requestOptions(timing));
        } catch (error) {
          throw mapDaytonaError(error, site);
        }
      },
      {
        policy: DELETE_RETRY,
        isRetryable: (error) => {
          const status = statusOf(error);
          return status === 400 || status === 409 || (error as { retryable?: unknown }).retryable === true;
        },
        ...(timing.signal ? { signal: timing.signal } : {}),
      },
    );
    found = true;
  } catch (error) {
    if (!isNotFound(error)) throw error;
    found = false;
  }
  context.forget(sandboxId, { keepOwnership: found });
  return found;
}

/**
 * Stops a sandbox and waits until it is stopped (its processes end; its
 * files stay); `start` brings it back. Already stopped is fine. With
 * `autoDeleteMinutes: 0`, Daytona deletes a sandbox once it stops.
 */
export function stop(context: DaytonaContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "stop", context.options.timeouts.lifecycleMs, async (sandboxId, call) => {
    const sandbox = await context.sandbox(sandboxId, "stop", call);
    try {
      await sandbox.stop(seconds(call.remainingMs()));
    } catch (error) {
      const mapped = mapDaytonaError(error, { operation: "stop", sandboxId });
      if (mapped.code !== "INVALID_REQUEST") throw mapped;
      // Refused: it may be stopped already. Anything else it is, is the refusal's reason.
      const current = await context.record(sandboxId, "stop", call);
      if (!current) throw sandboxNotFound(PROVIDER, sandboxId, "stop", error);
      if (current.state !== "stopped" && current.state !== "archived") throw mapped;
    } finally {
      // The instance's toolbox is gone with the stop; the next call looks the sandbox up again.
      context.forget(sandboxId, { keepOwnership: true });
    }
  });
}
