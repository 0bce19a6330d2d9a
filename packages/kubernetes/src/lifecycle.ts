import type { OpOptions } from "@sandport/core";
import { absentAs, type CallBudget, destroyVerified, pause } from "@sandport/core/adapter";
import { stillThereAfterDelete } from "./claim-gone.js";
import type { KubernetesContext } from "./context.js";
import { sandboxNameOf } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";
import { conditionOf, type SandboxClaim } from "./internal/sdk-types.js";
import { waitFor } from "./wait-for.js";

/** Before looking again at a claim a launch's cleanup deleted, once a look ran out of time. */
const STATUS_POLL_MS = 200;

/**
 * Deletes the claim with foreground propagation and resolves once it is
 * verified gone (`destroyVerified`): the API server keeps a claim deleted
 * in the foreground (`foregroundDeletion` finalizer) until its sandbox and
 * that sandbox's pod are gone, so the claim's end shows all three are. The
 * delete answers the claim as it stays (its `deletionTimestamp` and
 * `resourceVersion`), and one watch of it from that version ends at its
 * `DELETED` event (`stillThereAfterDelete`): one request, however long the
 * pod takes to go. A claim already absent counts as destroyed; one this
 * runtime has not seen is checked for our owner first (`FOREIGN_SANDBOX`).
 */
export function destroy(context: KubernetesContext, handle: unknown, op?: OpOptions): Promise<void> {
  let answer: SandboxClaim | undefined;
  let looked = false;
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: (claimName, budget) =>
      deleteClaim(context, claimName, budget, (claim) => {
        answer = claim;
      }),
    exists: (claimName, budget) => {
      // The delete's answer starts the first look only: a later one reads the claim again first.
      const from = looked ? undefined : answer;
      looked = true;
      return stillThereAfterDelete(context, claimName, from, budget);
    },
  });
}

/**
 * One foreground `DELETE` of a claim known to be ours; resolves whether it
 * was there, and hands its answer (the claim as the API server has it after
 * the call) to `answered`.
 */
export async function deleteClaim(
  context: KubernetesContext,
  claimName: string,
  budget: CallBudget,
  answered?: (claim: SandboxClaim) => void,
): Promise<boolean> {
  try {
    answered?.((await context.api.deleteClaim(claimName, "Foreground", budget)) as SandboxClaim);
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
 * API server no longer has it (so its sandbox and pod are gone too), by the
 * same watch as `destroy`: the background cleanup of a launch that failed
 * after its claim was made.
 */
export async function deleteClaimAndWait(
  context: KubernetesContext,
  claimName: string,
  budget: CallBudget,
): Promise<boolean> {
  let answer: SandboxClaim | undefined;
  const was = await deleteClaim(context, claimName, budget, (claim) => {
    answer = claim;
  });
  const signal = AbortSignal.timeout(Math.max(1, budget.remainingMs()));
  while (was && (await stillThereAfterDelete(context, claimName, answer, budget))) {
    answer = undefined;
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
