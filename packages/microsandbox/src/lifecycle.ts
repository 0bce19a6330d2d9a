import type { OpOptions } from "@sandport/core";
import { confirmGone, destroyUnverified, errorName, httpStatusOf, sandboxNotFound } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { isSandboxNotFound, mapMicrosandboxError } from "./errors.js";
import { PROVIDER } from "./handle.js";

/** Time kept back from the destroy deadline, so an unverified destroy reports itself and not a bare deadline. */
const VERIFY_MARGIN_MS = 250;

/**
 * Destroys a sandbox and resolves once it is verified gone: `DELETE`, then
 * `GET` until microsandbox reports not-found (`confirmGone`). A sandbox that
 * is already absent counts as destroyed. A sandbox this runtime has not seen
 * is checked for our ownership marker first (`FOREIGN_SANDBOX` otherwise).
 * When absence cannot be shown before the deadline, rejects
 * `DESTROY_UNVERIFIED` (retryable). Commands still running in it end with it.
 */
export function destroy(context: MicrosandboxContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "destroy", "destroyMs", async (name, call) => {
    if (!context.knownOwned(name) && !(await context.ownedRecord(name, "destroy", call.signal))) {
      context.forget(name);
      return;
    }
    if (!(await deleteSandbox(context, name, "destroy", call.signal))) return;
    const verdict = await confirmGone(async () => (await context.record(name, "destroy", call.signal)) !== undefined, {
      until: Date.now() + call.remainingMs() - VERIFY_MARGIN_MS,
      signal: call.signal,
    });
    if (verdict.gone) return;
    const why = verdict.reason === "still-present" ? "it was still there after the delete" : "the check failed";
    throw destroyUnverified(PROVIDER, name, why, verdict.last);
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
  signal?: AbortSignal,
): Promise<boolean> {
  const site = { operation, sandboxId: name };
  /** One delete: whether the sandbox was there. */
  const remove = async (): Promise<boolean> => {
    try {
      await context.entry((statics) => statics.remove(name), signal);
      return true;
    } catch (error) {
      if (isSandboxNotFound(error)) return false;
      throw error;
    }
  };
  let found: boolean;
  try {
    found = await remove();
  } catch (error) {
    const record = await context.record(name, operation, signal);
    if (!record) found = true;
    else if (!stillRunning(error)) throw mapMicrosandboxError(error, site);
    else {
      await record.stop().catch((stopError: unknown) => {
        throw mapMicrosandboxError(stopError, site);
      });
      found = await remove().catch((removeError: unknown) => {
        throw mapMicrosandboxError(removeError, site);
      });
    }
  }
  context.forget(name, { keepOwnership: found });
  return found;
}

function stillRunning(error: unknown): boolean {
  return errorName(error) === "SandboxStillRunningError" || httpStatusOf(error) === 409;
}

/**
 * Stops a sandbox: microsandbox shuts its VM down (gracefully, then
 * forcibly), ending its commands; `start` boots it again. Already stopped is fine.
 */
export function stop(context: MicrosandboxContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "stop", "lifecycleMs", async (name, call) => {
    const owned = await context.ownedRecord(name, "stop", call.signal);
    await (owned?.record.stop() ?? Promise.reject(sandboxNotFound(PROVIDER, name, "stop"))).catch(
      absentAs(name, "stop"),
    );
    // The attached sandbox talks to a stopped agent now; attach again after a start.
    context.forget(name, { keepOwnership: true });
  });
}

/** Starts a stopped sandbox and resolves once it runs (a running one is left running). */
export function start(context: MicrosandboxContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "start", "lifecycleMs", async (name, call) => {
    await context.assertOwned(name, "start");
    const started = await context.entry((statics) => statics.start(name), call.signal).catch(absentAs(name, "start"));
    context.remember(name, started);
  });
}

/** Rethrows an error, the SDK's not-found of the sandbox as `NOT_FOUND` naming it. */
function absentAs(name: string, operation: string): (error: unknown) => never {
  return (error) => {
    throw isSandboxNotFound(error) ? sandboxNotFound(PROVIDER, name, operation, error) : error;
  };
}
