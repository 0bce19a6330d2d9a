import type { OpOptions } from "@sandport/core";
import { type CallBudget, destroyVerified, whenAbsent } from "@sandport/core/adapter";
import { isRunning, type ModalContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { inScope } from "./internal/call-scope.js";

/**
 * Destroys a sandbox and resolves once it is verified gone (`destroyVerified`):
 * terminate, then poll until Modal reports it finished (or unknown). A sandbox
 * that is already absent or finished counts as destroyed; one this runtime has
 * not seen is checked for our ownership tag first (`FOREIGN_SANDBOX`
 * otherwise). When the end cannot be shown before the deadline, rejects
 * `DESTROY_UNVERIFIED` (retryable). Terminating is Modal's only transition:
 * there is no stop or start.
 */
export function destroy(context: ModalContext, handle: unknown, op?: OpOptions): Promise<void> {
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: (sandboxId, budget) => terminateSandbox(context, sandboxId, budget),
    exists: async (sandboxId) => {
      const sandbox = await (await context.client()).sandboxes.fromId(sandboxId);
      return isRunning(sandbox).catch(whenAbsent(isNotFound, false));
    },
  });
}

/**
 * One terminate of a sandbox known to be ours; resolves whether it was there.
 * Shared with the cleanup of abandoned launches, whose budget it carries.
 */
export function terminateSandbox(context: ModalContext, sandboxId: string, budget: CallBudget): Promise<boolean> {
  return inScope(budget, async () => {
    const sandbox = await (await context.client()).sandboxes.fromId(sandboxId);
    const terminated = sandbox.terminate().then(() => true, whenAbsent(isNotFound, false));
    return terminated.catch((error: unknown) => {
      throw context.mapError(error, { operation: "destroy", sandboxId });
    });
  });
}
