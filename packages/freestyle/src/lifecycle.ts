import type { OpOptions } from "@sandport/core";
import { absentAs, type CallBudget, destroyVerified, whenAbsent } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { FreestyleVm } from "./internal/sdk-types.js";

/**
 * Destroys a VM and resolves once it is verified gone (`destroyVerified`):
 * `DELETE`, then `GET` until Freestyle answers 404; a VM in any state,
 * `stopped` included, still counts as present. A VM that is already absent
 * counts as destroyed; one this runtime has not seen is checked for our marks
 * first (`FOREIGN_SANDBOX` otherwise). When absence cannot be shown before
 * the deadline, rejects `DESTROY_UNVERIFIED` (retryable).
 */
export function destroy(context: FreestyleContext, handle: unknown, op?: OpOptions): Promise<void> {
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: (vmId, budget) => deleteVm(context, vmId, budget),
  });
}

/**
 * One `DELETE /v5/vms/{id}` of a VM known to be ours; resolves whether it was
 * there. Shared with the cleanup of abandoned launches.
 */
export async function deleteVm(context: FreestyleContext, vmId: string, budget: CallBudget): Promise<boolean> {
  const client = await context.client(budget);
  const deleted = client.vms.delete(vmId).then(() => true, whenAbsent(isNotFound, false));
  return deleted.catch((error: unknown) => {
    throw context.mapError(error, { operation: "destroy", sandboxId: vmId });
  });
}

/** Pauses a VM (Freestyle keeps its memory and disk); `start` resumes it. Already paused is fine. */
export function stop(context: FreestyleContext, handle: unknown, op?: OpOptions): Promise<void> {
  return lifecycleCall(context, handle, op, "stop", (vm) => vm.pause());
}

/** Starts a paused or stopped VM; a running one is left running. */
export function start(context: FreestyleContext, handle: unknown, op?: OpOptions): Promise<void> {
  return lifecycleCall(context, handle, op, "start", (vm) => vm.start());
}

function lifecycleCall(
  context: FreestyleContext,
  handle: unknown,
  op: OpOptions | undefined,
  operation: "stop" | "start",
  action: (vm: FreestyleVm) => Promise<unknown>,
): Promise<void> {
  return context.onOwned(handle, op, operation, context.options.timeouts.lifecycleMs, async (vmId, call) => {
    await action(await context.vm(vmId, call)).catch(absentAs(PROVIDER, isNotFound, vmId, operation));
  });
}
