import { LAUNCH_KEY_LABEL } from "@sandport/core";
import { type CallBudget, isOwnedBy, listPages, ownedLookups, type SandboxListing } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { type FreestyleHandle, handleFromVm, validVmId } from "./handle.js";
import type { FreestyleVmData } from "./internal/sdk-types.js";
import { metadataFilter, slugFor } from "./ownership.js";

/** How often the list is walked again when VMs came or went while it was walked. */
const LIST_WALKS = 3;

/**
 * `getById` (`getOwned`: one `GET /v5/vms/{id}`) and `findByLabels`
 * (`findOwned`: every VM of ours carrying the labels, in any state; Freestyle
 * filters by metadata and the recipe checks every result again). Launch
 * reclaim's search is {@link findByLaunchKey}, below.
 */
export const { getById, findByLabels } = ownedLookups<FreestyleContext, FreestyleVmData, FreestyleHandle>({
  listing: freestyleListing,
  validId: validVmId,
  toHandle: handleFromVm,
});

/**
 * Ids of our VMs carrying `launchKey`, for the cleanup of an abandoned launch:
 * one `GET` of the slug the launch key gives (the list could lag behind).
 */
export async function findByLaunchKey(
  context: FreestyleContext,
  launchKey: string,
  budget: CallBudget,
): Promise<string[]> {
  const { owner, namePrefix } = context.options;
  let data: FreestyleVmData;
  try {
    data = await (await context.client(budget)).vms.get(slugFor(namePrefix, owner, launchKey));
  } catch (error) {
    if (isNotFound(error)) return [];
    throw context.mapError(error, { operation: "background cleanup" });
  }
  const labels = context.labelsOf(data);
  return isOwnedBy(labels, owner) && labels?.[LAUNCH_KEY_LABEL] === launchKey ? [data.id] : [];
}

/**
 * Freestyle's list, every page (each retried on retryable errors). It is
 * paged by offset, so a VM deleted while it is walked shifts the rest: when
 * the total changes between pages the walk is repeated, and what every walk
 * found is kept, so no VM that existed throughout is missed. A filter no VM
 * can match (a value Freestyle cannot store) lists nothing.
 */
function freestyleListing(context: FreestyleContext): SandboxListing<FreestyleVmData> {
  return {
    idOf: (vm) => vm.id,
    list: async (query, operation, budget) => {
      const filter = metadataFilter(query);
      if (filter === undefined) return [];
      const client = await context.client(budget);
      const found = new Map<string, FreestyleVmData>();
      for (let walk = 1; walk <= LIST_WALKS; walk++) {
        const totals = new Set<number>();
        let offset = 0;
        let done = false;
        const nextPage = async () => {
          if (done) return undefined;
          const page = await client.vms.list({ metadata: filter, limit: context.options.listPageSize, offset });
          totals.add(page.totalCount);
          offset += page.vms.length;
          done = page.vms.length === 0 || offset >= page.totalCount;
          return page.vms;
        };
        const vms = await listPages(context, operation, budget, nextPage);
        for (const vm of vms) found.set(vm.id, vm);
        if (totals.size <= 1) break;
      }
      return [...found.values()];
    },
  };
}
