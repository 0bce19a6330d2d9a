import type { OpOptions } from "@sandport/core";
import { absentAs, type CallBudget, destroyVerified } from "@sandport/core/adapter";
import type { VercelContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";

/**
 * Deletes a sandbox (never the SDK's `AsyncDisposable`, which only stops it)
 * and resolves once it is verified gone (`destroyVerified`): the list no
 * longer has its name, or has it with another creation time (a new sandbox
 * took the name, so ours is gone). A sandbox already absent counts as
 * destroyed; a name this runtime has not seen is checked for our ownership
 * tag first (`FOREIGN_SANDBOX` otherwise). When absence cannot be shown
 * before the deadline, rejects `DESTROY_UNVERIFIED` (retryable).
 */
export function destroy(context: VercelContext, handle: unknown, op?: OpOptions): Promise<void> {
  let createdAt: number | undefined;
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: async (name, budget) => {
      createdAt = await deleteSandbox(context, name, budget);
      return createdAt !== undefined;
    },
    exists: async (name, budget) => (await context.describe(name, "destroy", budget))?.createdAt === createdAt,
  });
}

/**
 * One delete of a sandbox known to be ours, with its orphaned snapshots
 * (where the SDK sends that); resolves the deleted sandbox's creation time
 * (epoch ms), `undefined` when it was not there. Shared with the cleanup of
 * abandoned launches.
 */
export async function deleteSandbox(
  context: VercelContext,
  name: string,
  budget: CallBudget,
): Promise<number | undefined> {
  try {
    const sandbox = await context.instance(name, "destroy", budget);
    await sandbox.delete({ deleteOrphanSnapshots: true, signal: context.connection(budget).signal });
    return sandbox.createdAt.getTime();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw context.mapError(error, { operation: "destroy", sandboxId: name });
  }
}

/** Stops the sandbox's session; Vercel keeps the files of a persistent sandbox. Already stopped is fine. */
export function stop(context: VercelContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onInstance(handle, op, "stop", context.options.timeouts.lifecycleMs, async (sandbox, call) => {
    await sandbox.stop({ signal: call.signal });
  });
}

/**
 * Starts a new session of a stopped sandbox (`Sandbox.get` with `resume`); a
 * running one is left running. The session lives for the lifetime the
 * sandbox was created with.
 */
export function start(context: VercelContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "start", context.options.timeouts.lifecycleMs, async (name, call) => {
    await context.assertOwned(name, "start", call);
    const sdk = await context.sdk();
    const resumed = sdk.Sandbox.get({ ...context.connection(call), name, resume: true });
    context.remember(name, await resumed.catch(absentAs(PROVIDER, isNotFound, name, "start")));
  });
}
