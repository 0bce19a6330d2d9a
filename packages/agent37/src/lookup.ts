import { SandportError } from "@sandport/core";
import { listPages, ownedLookups, type SandboxListing } from "@sandport/core/adapter";
import type { Agent37Context } from "./context.js";
import { type Agent37Handle, handleFromInstance, PROVIDER, validInstanceId } from "./handle.js";
import type { Agent37Instance } from "./internal/sdk-types.js";

/**
 * `getById` (one `GET /v1/instances/{id}`), `findByLabels` (every instance
 * of ours carrying the labels, in any state) and launch reclaim's search by
 * launch key. Agent37's list has neither pagination nor a metadata filter:
 * one `GET /v1/instances` answers the workspace's every instance, and the
 * owner, launch key and labels are matched here, over the whole list. A
 * list longer than `maxListedInstances` is refused, not cut.
 */
export const { getById, findByLabels, findByLaunchKey } = ownedLookups<Agent37Context, Agent37Instance, Agent37Handle>({
  listing: agent37Listing,
  validId: validInstanceId,
  toHandle: handleFromInstance,
});

function agent37Listing(context: Agent37Context): SandboxListing<Agent37Instance> {
  return {
    idOf: (instance) => instance.id,
    list: async (_filter, operation, budget) => {
      // One page, read (and retried on retryable errors) the way every paged list is.
      let read = false;
      const instances = await listPages(context, operation, budget, async () => {
        if (read) return undefined;
        const page = await context.client.listInstances(budget);
        read = true;
        return page;
      });
      const limit = context.options.maxListedInstances;
      if (instances.length > limit) {
        throw new SandportError({
          code: "UNEXPECTED",
          provider: PROVIDER,
          retryable: false,
          message: `agent37 ${operation}: the workspace lists ${instances.length} instances, more than maxListedInstances (${limit}); ownership is matched over the whole list, so a longer one is not read`,
          details: { operation, listed: instances.length, limit },
        });
      }
      return instances;
    },
  };
}
