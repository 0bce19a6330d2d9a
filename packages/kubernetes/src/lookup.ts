import { listPages, ownedLookups, type SandboxListing } from "@sandport/core/adapter";
import type { KubernetesContext } from "./context.js";
import { handleFromClaim, type KubernetesHandle, validClaimName } from "./handle.js";
import type { SandboxClaim } from "./internal/sdk-types.js";
import { labelSelector } from "./labels.js";

/**
 * `getById` (one `GET` of the claim, ownership checked on its labels),
 * `findByLabels` (one list of the namespace's claims by a label selector
 * of the labels' digests, the owner's included; each answer checked again
 * on its annotation) and launch reclaim's search by launch key. A claim
 * being deleted (`deletionTimestamp` set) is not listed.
 */
export const { getById, findByLabels, findByLaunchKey } = ownedLookups<
  KubernetesContext,
  SandboxClaim,
  KubernetesHandle
>({
  listing: claimListing,
  validId: validClaimName,
  toHandle: (claim, context) =>
    handleFromClaim(claim.metadata.name as string, context.labelsOf(claim), claim.metadata.creationTimestamp),
});

function claimListing(context: KubernetesContext): SandboxListing<SandboxClaim> {
  return {
    idOf: (claim) => claim.metadata.name as string,
    list: async (filter, operation, budget) => {
      // One answer holds every match (the API server pages only when asked), read as every list is.
      // Marked read once it answered: a refused request is asked again (listPages retries a page), not taken as the end.
      let read = false;
      const claims = await listPages(context, operation, budget, async () => {
        if (read) return undefined;
        const page = await context.api.listClaims(labelSelector(filter), budget);
        read = true;
        return page;
      });
      return claims.filter((claim) => claim.metadata.deletionTimestamp === undefined);
    },
  };
}
