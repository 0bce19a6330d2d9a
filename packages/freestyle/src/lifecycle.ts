import type { OpOptions } from "@sandport/core";
import { confirmGone, destroyUnverified, sandboxNotFound } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { isNotFound, mapFreestyleError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { CallTiming } from "./transport.js";

/** Time kept back from the destroy deadline, so an unverified destroy reports itself and not a bare deadline. */
const VERIFY_MARGIN_MS = 250;

/**
 * Destroys a VM and resolves once it is verified gone: `DELETE`, then `GET`
 * until Freestyle answers 404 (`confirmGone`); a VM in any state, `stopped`
 * included, still counts as present. A VM that is already absent counts as
 * destroyed. A VM this runtime has not seen is checked for our marks first
 * (`FOREIGN_SANDBOX` otherwise). When absence cannot be shown before the
 * deadline, rejects `DESTROY_UNVERIFIED` (retryable).
 */
export function destroy(context: FreestyleContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onVm(
    handle,
    op,
    "destroy",
    context.options.timeouts.destroyMs,
    async (vmId, call) => {
      if (!context.known.isOwned(vmId) && !(await context.ownedVm(vmId, "destroy", call))) {
        context.known.forget(vmId);
        return;
      }
      if (!(await deleteVm(context, vmId, call))) return;
      const client = await context.client(call);
      const verdict = await confirmGone(
        async () => {
          try {
            return (await client.vms.get(vmId)).id === vmId;
          } catch (error) {
            if (isNotFound(error)) return false;
            throw error;
          }
        },
        { until: Date.now() + call.remainingMs() - VERIFY_MARGIN_MS, signal: call.signal },
      );
      if (verdict.gone) return context.known.forget(vmId);
      const why = verdict.reason === "still-present" ? "it was still there after the delete" : "the check failed";
      throw destroyUnverified(PROVIDER, vmId, why, verdict.last);
    },
    // Checked below: an absent VM is destroyed already, not an error.
    { owned: false },
  );
}

/**
 * One `DELETE /v5/vms/{id}` of a VM known to be ours; resolves whether it was
 * there. Shared with the cleanup of abandoned launches.
 */
export async function deleteVm(context: FreestyleContext, vmId: string, timing: CallTiming): Promise<boolean> {
  const client = await context.client(timing);
  let found = true;
  try {
    await client.vms.delete(vmId);
  } catch (error) {
    if (!isNotFound(error)) throw mapFreestyleError(error, { operation: "destroy", sandboxId: vmId });
    found = false;
  }
  context.known.forget(vmId, { keepOwnership: found });
  return found;
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
  action: (vm: { pause(): Promise<unknown>; start(): Promise<unknown> }) => Promise<unknown>,
): Promise<void> {
  return context.onVm(handle, op, operation, context.options.timeouts.lifecycleMs, async (vmId, call) => {
    try {
      await action(await context.vm(vmId, call));
    } catch (error) {
      if (isNotFound(error)) throw sandboxNotFound(PROVIDER, vmId, operation, error);
      throw error;
    }
  });
}
