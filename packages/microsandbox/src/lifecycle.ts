import type { OpOptions } from "@sandport/core";
import {
  absentAs,
  type CallBudget,
  destroyVerified,
  errorName,
  httpStatusOf,
  onOwnedInfo,
  whenAbsent,
} from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { isSandboxNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";

/**
 * Destroys a sandbox and resolves once it is verified gone (`destroyVerified`):
 * `DELETE`, then `GET` until microsandbox reports not-found. A sandbox that is
 * already absent counts as destroyed; one this runtime has not seen is checked
 * for our ownership marker first (`FOREIGN_SANDBOX` otherwise). When absence
 * cannot be shown before the deadline, rejects `DESTROY_UNVERIFIED`
 * (retryable). Commands still running in it end with it.
 */
export function destroy(context: MicrosandboxContext, handle: unknown, op?: OpOptions): Promise<void> {
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: (name, budget) => deleteSandbox(context, name, "destroy", budget),
  });
}

/**
 * Deletes a sandbox known to be ours (`DELETE /v1/sandboxes/by-name/:name`)
 * and resolves whether it was there. Where the service refuses to delete a
 * running sandbox (409), it is stopped first. A delete that failed otherwise
 * (a 5xx, a dropped connection: it may or may not have happened) is judged by
 * one look: gone counts as deleted, still there rejects with the delete's
 * error. Shared with the cleanup of abandoned launches.
 */
export async function deleteSandbox(
  context: MicrosandboxContext,
  name: string,
  operation: string,
  budget: CallBudget,
): Promise<boolean> {
  const site = { operation, sandboxId: name };
  const remove = () =>
    context
      .entry((statics) => statics.remove(name), budget.signal)
      .then(() => true, whenAbsent(isSandboxNotFound, false));
  try {
    return await remove();
  } catch (error) {
    const record = await context.describe(name, operation, budget).catch((lookError: unknown) => {
      throw context.mapError(lookError, site);
    });
    if (!record) return true;
    if (errorName(error) !== "SandboxStillRunningError" && httpStatusOf(error) !== 409) {
      throw context.mapError(error, site);
    }
    try {
      await record.stop();
      return await remove();
    } catch (stopError) {
      throw context.mapError(stopError, site);
    }
  }
}

/**
 * Stops a sandbox: microsandbox shuts its VM down (gracefully, then
 * forcibly), ending its commands; `start` boots it again. Already stopped is fine.
 */
export function stop(context: MicrosandboxContext, handle: unknown, op?: OpOptions): Promise<void> {
  return onOwnedInfo(context, handle, op, "stop", context.options.timeouts.lifecycleMs, async (record, _call, name) => {
    await record.stop().catch(absentAs(PROVIDER, isSandboxNotFound, name, "stop"));
    // The attached sandbox talks to a stopped agent now; attach again after a start.
    context.forget(name, { keepOwnership: true });
  });
}

/** Starts a stopped sandbox and resolves once it runs (a running one is left running). */
export function start(context: MicrosandboxContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "start", context.options.timeouts.lifecycleMs, async (name, call) => {
    await context.assertOwned(name, "start", call);
    const starting = context.entry((statics) => statics.start(name), call.signal);
    const started = await starting.catch(absentAs(PROVIDER, isSandboxNotFound, name, "start"));
    context.remember(name, started);
  });
}
