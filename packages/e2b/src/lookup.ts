import { listPages, ownedLookups, type SandboxListing } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { type E2BHandle, handleFromInfo, validSandboxId } from "./handle.js";
import type { E2BSandboxInfo } from "./internal/sdk-types.js";

/**
 * `getById` (`getOwned`: one `GET /sandboxes/{id}`, never a connect, which
 * would resume a paused sandbox), `findByLabels` (`findOwned`: E2B filters by
 * metadata and the recipe checks again; running and paused sandboxes are both
 * listed) and `findByLaunchKey` (for the cleanup of an abandoned launch).
 */
export const { getById, findByLabels, findByLaunchKey } = ownedLookups<E2BContext, E2BSandboxInfo, E2BHandle>({
  listing: e2bListing,
  validId: validSandboxId,
  toHandle: handleFromInfo,
});

/** E2B's list API (`GET /v2/sandboxes`, metadata filter, running and paused), every page. */
function e2bListing(context: E2BContext): SandboxListing<E2BSandboxInfo> {
  return {
    idOf: (info) => info.sandboxId,
    list: async (filter, operation, budget) => {
      const sdk = await context.sdk();
      const paginator = sdk.Sandbox.list({
        ...context.fields({ remainingMs: budget.remainingMs }),
        query: { metadata: filter, state: ["running", "paused"] },
        limit: context.options.listPageSize,
      });
      const nextPage = async () => (paginator.hasNext ? paginator.nextItems(context.fields(budget)) : undefined);
      return listPages(context, operation, budget, nextPage);
    },
  };
}
