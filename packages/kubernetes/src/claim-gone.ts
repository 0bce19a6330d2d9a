import type { CallBudget } from "@sandport/core/adapter";
import type { KubernetesContext } from "./context.js";
import type { SandboxClaim } from "./internal/sdk-types.js";
import { watchObject } from "./internal/watch.js";

/**
 * Whether a claim is still there after its delete, in one request when the
 * delete answered the claim as it stays (a foreground delete: a
 * `deletionTimestamp`, kept until its sandbox and pod are gone): a watch of
 * that claim from the answer's `resourceVersion`, which ends at its `DELETED`
 * event. Resolves `false` once it is gone, `true` when it is still there at
 * the end of `budget`. Without such an answer (the delete removed it at
 * once), or once a watch ended or its version was too old, a `GET` says
 * where it stands (404: gone) and the watch starts again from its version.
 * A refused watch or read rejects, as a failed look.
 */
export async function stillThereAfterDelete(
  context: KubernetesContext,
  claimName: string,
  answer: SandboxClaim | undefined,
  budget: CallBudget,
): Promise<boolean> {
  let version = pending(answer) ? answer?.metadata.resourceVersion : undefined;
  for (;;) {
    if (version === undefined) {
      const claim = await context.describe(claimName, "destroy", budget);
      if (claim === undefined) return false;
      version = claim.metadata.resourceVersion;
      if (version === undefined || budget.remainingMs() <= 0) return true;
    }
    const end = await watchObject(context.api, context.api.claimsPath(), claimName, version, budget, () => undefined);
    if (end === "deleted") return false;
    if (budget.remainingMs() <= 0) return true;
    version = undefined;
  }
}

/** True for a delete's answer that is the claim still there, being deleted. */
function pending(answer: SandboxClaim | undefined): boolean {
  return (
    typeof answer === "object" &&
    answer !== null &&
    (answer as { kind?: unknown }).kind !== "Status" &&
    typeof answer.metadata?.deletionTimestamp === "string"
  );
}
