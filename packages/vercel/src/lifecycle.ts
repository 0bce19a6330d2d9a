import type { OpOptions } from "@sandport/core";
import { confirmGone, destroyUnverified, sandboxNotFound } from "@sandport/core/adapter";
import { budget, type CallTiming, raceAbort, type VercelContext } from "./context.js";
import { isNotFound, mapVercelError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import { findOwnedRow, findRow } from "./lookup.js";

/** Time kept back from the destroy deadline, so an unverified destroy reports itself and not a bare deadline. */
const VERIFY_MARGIN_MS = 250;

/**
 * Deletes a sandbox (never the SDK's `AsyncDisposable`, which only stops it)
 * and resolves once it is verified gone: the list no longer has its name, or
 * has it with another creation time (a new sandbox took the name, so ours is
 * gone). A sandbox already absent counts as destroyed; a name this runtime
 * has not seen is checked for our ownership tag first (`FOREIGN_SANDBOX`
 * otherwise). When absence cannot be shown before the deadline, rejects
 * `DESTROY_UNVERIFIED` (retryable) and keeps what it knows, so that
 * destroying again finishes the job.
 */
export function destroy(context: VercelContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.operations.onHandle(handle, op, "destroy", context.options.timeouts.destroyMs, async (name, call) => {
    if (!context.knownOwned(name) && !(await findOwnedRow(context, name, "destroy", call))) {
      context.forget(name);
      return;
    }
    const createdAt = context.createdAtOf(name);
    await deleteSandbox(context, name, call);
    const until = Date.now() + call.remainingMs() - VERIFY_MARGIN_MS;
    // Each check ends by `until` too, so a slow one reports itself as unverified. Raced, not only signalled: the
    // SDK notices an abort only between its retries, not while it waits for the next one.
    const probe = () => {
      const timing = budget(Math.max(1, until - Date.now()), call.signal);
      return raceAbort(stillListed(context, name, createdAt, timing), timing.signal);
    };
    const verdict = await confirmGone(probe, { until, signal: call.signal });
    if (verdict.gone) return context.forget(name);
    const why = verdict.reason === "still-present" ? "it was still listed after the delete" : "the check failed";
    throw destroyUnverified(PROVIDER, name, why, verdict.last);
  });
}

/**
 * One delete of a sandbox known to be ours (with its orphaned snapshots, where
 * the SDK sends that); resolves whether it was there. Shared with the cleanup
 * of abandoned launches.
 */
export async function deleteSandbox(context: VercelContext, name: string, timing: CallTiming): Promise<boolean> {
  try {
    const sandbox = await context.sandbox(name, "destroy");
    await sandbox.delete({ deleteOrphanSnapshots: true, signal: timing.signal });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw mapVercelError(error, { operation: "destroy", sandboxId: name });
  }
}

/** True while the list still has `name` as the sandbox created at `createdAt` (any, when that is unknown). */
async function stillListed(
  context: VercelContext,
  name: string,
  createdAt: number | undefined,
  timing: CallTiming,
): Promise<boolean> {
  const row = await findRow(context, name, "destroy", timing);
  return row !== undefined && (createdAt === undefined || row.createdAt === createdAt);
}

/** Stops the sandbox's session; Vercel keeps the files of a persistent sandbox. Already stopped is fine. */
export function stop(context: VercelContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onSandbox(handle, op, "stop", context.options.timeouts.lifecycleMs, async (sandbox, call) => {
    await sandbox.stop({ signal: call.signal });
  });
}

/**
 * Starts a new session of a stopped sandbox (`Sandbox.get` with `resume`); a
 * running one is left running. The session lives for the lifetime the
 * sandbox was created with.
 */
export function start(context: VercelContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.operations.onHandle(handle, op, "start", context.options.timeouts.lifecycleMs, async (name, call) => {
    if (!context.knownOwned(name) && !(await findOwnedRow(context, name, "start", call))) {
      throw sandboxNotFound(PROVIDER, name, "start");
    }
    const sdk = await context.sdk();
    try {
      context.remember(await sdk.Sandbox.get({ ...context.connection(call), name, resume: true }));
    } catch (error) {
      if (isNotFound(error)) throw sandboxNotFound(PROVIDER, name, "start", error);
      throw error;
    }
  });
}
