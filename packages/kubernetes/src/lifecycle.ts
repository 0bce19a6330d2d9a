import type { OpOptions } from "@sandport/core";
import { absentAs, type CallBudget, destroyVerified, pause } from "@sandport/core/adapter";
import type { KubernetesContext } from "./context.js";
import { sandboxNameOf } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";
import { conditionOf } from "./internal/sdk-types.js";
import { waitFor } from "./wait-for.js";

/** Between two looks at a claim being deleted by a launch's cleanup. */
const STATUS_POLL_MS = 200;

/**
 * Deletes the claim with foreground propagation and resolves once it is
 * verified gone (`destroyVerified`): the API server keeps a claim deleted
 * in the foreground (`foregroundDeletion` finalizer) until its sandbox and
 * that sandbox's pod are gone, so a `GET` of the claim answering 404 shows
 * all three are. A claim already absent counts as destroyed; one this
 * runtime has not seen is checked for our owner first (`FOREIGN_SANDBOX`).
 */
export function destroy(context: KubernetesContext, handle: unknown, op?: OpOptions): Promise<void> {
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: (claimName, budget) => deleteClaim(context, claimName, budget),
  });
}

/** One foreground `DELETE` of a claim known to be ours; resolves whether it was there. */
export async function deleteClaim(context: KubernetesContext, claimName: string, budget: CallBudget): Promise<boolean> {
  try {
    await context.api.deleteClaim(claimName, "Foreground", budget);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw context.mapError(error, { operation: "destroy", sandboxId: claimName });
  } finally {
    context.dropPod(claimName);
  }
}

/**
 * Deletes a claim in the foreground and waits, within `budget`, until the
 * API server no longer has it (so its sandbox and pod are gone too): the
 * background cleanup of a launch that failed after its claim was made.
 */
export async function deleteClaimAndWait(
  context: KubernetesContext,
  claimName: string,
  budget: CallBudget,
): Promise<boolean> {
  const was = await deleteClaim(context, claimName, budget);
  const signal = AbortSignal.timeout(Math.max(1, budget.remainingMs()));
  while ((await context.describe(claimName, "background cleanup", budget)) !== undefined) {
    await pause(STATUS_POLL_MS, signal);
  }
  return was;
}

/**
 * Suspends the claim's sandbox (`spec.operatingMode: Suspended`) and
 * resolves once its `Suspended` condition is `True`: the pod is deleted,
 * so running processes, memory and files outside volumes end; the Sandbox
 * object, the claim and the volumes (PVCs from the template's
 * `volumeClaimTemplates`) stay. Without a volume, the workspace does not survive.
 */
export function stop(context: KubernetesContext, handle: unknown, op?: OpOptions): Promise<void> {
  return setMode(context, handle, op, "stop", "Suspended");
}

/** Resumes a suspended sandbox (`operatingMode: Running`): a new pod, same name; resolves once `Ready` is `True`. */
export function start(context: KubernetesContext, handle: unknown, op?: OpOptions): Promise<void> {
  return setMode(context, handle, op, "start", "Running");
}

function setMode(
  context: KubernetesContext,
  handle: unknown,
  op: OpOptions | undefined,
  action: "stop" | "start",
  mode: "Suspended" | "Running",
): Promise<void> {
  return context.onOwned(handle, op, action, context.options.timeouts.lifecycleMs, async (claimName, call) => {
    const absent = absentAs(PROVIDER, isNotFound, claimName, action);
    const claim = await context.api.getClaim(claimName, call).catch(absent);
    const sandbox = sandboxNameOf(claim);
    if (sandbox === undefined) throw absent(Object.assign(new Error("the claim names no sandbox"), { status: 404 }));
    await context.api.setOperatingMode(sandbox, mode, call).catch(absent);
    // Watched, not polled (see `waitFor`): each change of the sandbox is checked as it happens.
    await waitFor(
      context,
      {
        read: () => context.api.getSandbox(sandbox, call).catch(absent),
        collection: context.api.sandboxesPath(),
        name: sandbox,
        done: (object) => {
          const condition = conditionOf(object, mode === "Suspended" ? "Suspended" : "Ready");
          return condition?.status === "True" ? true : undefined;
        },
      },
      call,
    );
  });
}
