import { listPages, ownedLookups, type SandboxListing } from "@sandport/core/adapter";
import type { DaytonaContext } from "./context.js";
import { type DaytonaHandle, handleFromSandbox, validSandboxId } from "./handle.js";
import type { DaytonaSandboxRecord } from "./internal/sdk-types.js";

/** States of a listed sandbox that is on its way out, or gone. */
const GONE = new Set(["destroyed", "destroying"]);

/**
 * `getById` (`getOwned`: one `GET /api/sandbox/{id}` through the low-level
 * API, cancellable; never starts a stopped sandbox), `findByLabels`
 * (`findOwned`: Daytona filters by labels and the recipe checks again;
 * sandboxes in state `error` are listed, so a failed launch can be cleaned
 * up, those being destroyed are not) and `findByLaunchKey` (for the cleanup
 * of an abandoned launch).
 */
export const { getById, findByLabels, findByLaunchKey } = ownedLookups<
  DaytonaContext,
  DaytonaSandboxRecord,
  DaytonaHandle
>({ listing: daytonaListing, validId: validSandboxId, toHandle: handleFromSandbox });

/** Daytona's list API (low-level, label filter, every page, sandboxes in state `error` included), without those on their way out. */
function daytonaListing(context: DaytonaContext): SandboxListing<DaytonaSandboxRecord> {
  return {
    idOf: (sandbox) => sandbox.id,
    list: async (filter, operation, budget) => {
      const api = await context.api();
      const labels = JSON.stringify(filter);
      let cursor: string | undefined;
      let done = false;
      const listed = await listPages(context, operation, budget, async () => {
        if (done) return undefined;
        const size = context.options.listPageSize;
        const { data } = await api.listSandboxes(undefined, cursor, size, undefined, undefined, labels, true);
        cursor = data.nextCursor ?? undefined;
        done = cursor === undefined;
        return data.items;
      });
      return listed.filter((sandbox) => sandbox.state === undefined || !GONE.has(sandbox.state));
    },
  };
}
