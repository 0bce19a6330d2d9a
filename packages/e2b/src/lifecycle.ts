import type { OpOptions } from "@sandport/core";
import { confirmGone, destroyUnverified, sandboxNotFound } from "@sandport/core/adapter";
import type { CallTiming, E2BContext } from "./context.js";
import { isNotFound, mapE2BError } from "./errors.js";
import { PROVIDER } from "./handle.js";

/** Time kept back from the destroy deadline, so an unverified destroy reports itself and not a bare deadline. */
const VERIFY_MARGIN_MS = 250;

/**
 * Destroys a sandbox and resolves once it is verified gone: `DELETE`, then
 * `GET` until E2B reports not-found (`confirmGone`). A sandbox that is already
 * absent counts as destroyed. A sandbox this runtime has not seen is checked
 * for our ownership marker first (`FOREIGN_SANDBOX` otherwise). When absence
 * cannot be shown before the deadline, rejects `DESTROY_UNVERIFIED` (retryable).
 */
export function destroy(context: E2BContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "destroy", context.options.timeouts.destroyMs, async (sandboxId, call) => {
    if (!context.known.isOwned(sandboxId) && !(await context.ownedInfo(sandboxId, "destroy", call))) {
      context.forget(sandboxId);
      return;
    }
    if (!(await deleteSandbox(context, sandboxId, call))) return;
    const sdk = await context.sdk();
    const verdict = await confirmGone(
      async () => {
        try {
          await sdk.Sandbox.getInfo(sandboxId, context.fields(call));
          return true;
        } catch (error) {
          if (isNotFound(error)) return false;
          throw error;
        }
      },
      { until: Date.now() + call.remainingMs() - VERIFY_MARGIN_MS, signal: call.signal },
    );
    if (verdict.gone) return context.forget(sandboxId);
    const why = verdict.reason === "still-present" ? "it was still listed after the delete" : "the check failed";
    throw destroyUnverified(PROVIDER, sandboxId, why, verdict.last);
  });
}

/**
 * One `DELETE /sandboxes/{id}` of a sandbox known to be ours; resolves whether
 * it was there. Shared with the cleanup of abandoned launches.
 */
export async function deleteSandbox(context: E2BContext, sandboxId: string, timing: CallTiming): Promise<boolean> {
  const sdk = await context.sdk();
  let found: boolean;
  try {
    found = await sdk.Sandbox.kill(sandboxId, context.fields(timing));
  } catch (error) {
    if (!isNotFound(error)) throw mapE2BError(error, { operation: "destroy", sandboxId });
    found = false;
  }
  context.forget(sandboxId, { keepOwnership: found });
  return found;
}

/** Pauses a sandbox (E2B keeps memory and filesystem); `start` resumes it. Already paused is fine. */
export function stop(context: E2BContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "stop", context.options.timeouts.lifecycleMs, async (sandboxId, call) => {
    await context.assertOwned(sandboxId, "stop", call);
    const sdk = await context.sdk();
    try {
      await sdk.Sandbox.pause(sandboxId, context.fields(call));
    } catch (error) {
      if (isNotFound(error)) throw sandboxNotFound(PROVIDER, sandboxId, "stop", error);
      throw error;
    }
    // The connected instance talks to a paused envd now; reconnect on next use.
    context.forget(sandboxId, { keepOwnership: true });
  });
}

/** Resumes a paused sandbox (a running one is left running) with the configured lifetime from now. */
export function start(context: E2BContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "start", context.options.timeouts.lifecycleMs, async (sandboxId, call) => {
    await context.assertOwned(sandboxId, "start", call);
    context.remember(await context.connect(sandboxId, "start", call));
  });
}
