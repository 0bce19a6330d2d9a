import type { OpOptions } from "@sandport/core";
import { confirmGone, destroyUnverified } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { isNotFound, mapModalError } from "./errors.js";
import { PROVIDER } from "./handle.js";

/** Time kept back from the destroy deadline, so an unverified destroy reports itself and not a bare deadline. */
const VERIFY_MARGIN_MS = 250;

/**
 * Destroys a sandbox and resolves once it is verified gone: terminate, then
 * poll until Modal reports it finished (or unknown). A sandbox that is
 * already absent or finished counts as destroyed. A sandbox this runtime has
 * not seen is checked for our ownership tag first (`FOREIGN_SANDBOX`
 * otherwise). When the end cannot be shown before the deadline, rejects
 * `DESTROY_UNVERIFIED` (retryable). Terminating is Modal's only transition:
 * there is no stop or start.
 */
export function destroy(context: ModalContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "destroy", context.options.timeouts.destroyMs, async (sandboxId, call) => {
    if (!context.knownOwned(sandboxId) && !(await context.ownedSandbox(sandboxId, "destroy"))) return;
    if (!(await terminateSandbox(context, sandboxId))) return;
    const client = await context.client();
    const sandbox = await client.sandboxes.fromId(sandboxId);
    const verdict = await confirmGone(
      async () => {
        try {
          return (await sandbox.poll()) === null;
        } catch (error) {
          if (isNotFound(error)) return false;
          throw error;
        }
      },
      { until: Date.now() + call.remainingMs() - VERIFY_MARGIN_MS, signal: call.signal },
    );
    if (verdict.gone) return;
    const why = verdict.reason === "still-present" ? "it was still running after the terminate" : "the check failed";
    throw destroyUnverified(PROVIDER, sandboxId, why, verdict.last);
  });
}

/**
 * One terminate of a sandbox known to be ours; resolves whether it was there.
 * Forgets the sandbox (its object's connection is released). Shared with the
 * cleanup of abandoned launches.
 */
export async function terminateSandbox(context: ModalContext, sandboxId: string): Promise<boolean> {
  const client = await context.client();
  const sandbox = await client.sandboxes.fromId(sandboxId);
  let found = true;
  try {
    await sandbox.terminate();
  } catch (error) {
    if (!isNotFound(error)) throw mapModalError(error, { operation: "destroy", sandboxId });
    found = false;
  }
  context.forget(sandboxId);
  return found;
}
