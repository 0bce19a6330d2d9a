import type { OpOptions } from "@sandport/core";
import { absentAs, type CallBudget, destroyVerified, whenAbsent } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";

/**
 * Destroys a sandbox and resolves once it is verified gone (`destroyVerified`):
 * `DELETE`, then `GET` until E2B reports not-found. A sandbox that is already
 * absent counts as destroyed; one this runtime has not seen is checked for our
 * ownership marker first (`FOREIGN_SANDBOX` otherwise). When absence cannot be
 * shown before the deadline, rejects `DESTROY_UNVERIFIED` (retryable).
 */
export function destroy(context: E2BContext, handle: unknown, op?: OpOptions): Promise<void> {
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: (sandboxId, budget) => deleteSandbox(context, sandboxId, budget),
  });
}

/**
 * One `DELETE /sandboxes/{id}` of a sandbox known to be ours; resolves whether
 * it was there. Shared with the cleanup of abandoned launches.
 */
export async function deleteSandbox(context: E2BContext, sandboxId: string, budget: CallBudget): Promise<boolean> {
  const sdk = await context.sdk();
  const killed = sdk.Sandbox.kill(sandboxId, context.fields(budget)).catch(whenAbsent(isNotFound, false));
  const found = await killed.catch((error: unknown) => {
    throw context.mapError(error, { operation: "destroy", sandboxId });
  });
  context.forget(sandboxId, { keepOwnership: found });
  return found;
}

/** Pauses a sandbox (E2B keeps memory and filesystem); `start` resumes it. Already paused is fine. */
export function stop(context: E2BContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "stop", context.options.timeouts.lifecycleMs, async (sandboxId, call) => {
    await context.assertOwned(sandboxId, "stop", call);
    const sdk = await context.sdk();
    await sdk.Sandbox.pause(sandboxId, context.fields(call)).catch(absentAs(PROVIDER, isNotFound, sandboxId, "stop"));
    // The connected instance talks to a paused envd now; reconnect on next use.
    context.forget(sandboxId, { keepOwnership: true });
  });
}

/** Resumes a paused sandbox (a running one is left running) with the configured lifetime from now. */
export function start(context: E2BContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "start", context.options.timeouts.lifecycleMs, async (sandboxId, call) => {
    await context.assertOwned(sandboxId, "start", call);
    context.remember(sandboxId, await context.connect(sandboxId, "start", call));
  });
}
