import { listPages, ownedLookups, type SandboxListing } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { handleFor, type MicrosandboxHandle, storedResources, validSandboxName } from "./handle.js";
import type { MsbSandboxHandle } from "./internal/sdk-types.js";

/**
 * `getById` (`getOwned`: one `GET /v1/sandboxes/by-name/:name`; never
 * attaches), `findByLabels` (`findOwned`: microsandbox filters by label and
 * the recipe checks again, across every page; running and stopped sandboxes
 * are both listed) and `findByLaunchKey` (for the cleanup of an abandoned launch).
 */
export const { getById, findByLabels, findByLaunchKey } = ownedLookups<
  MicrosandboxContext,
  MsbSandboxHandle,
  MicrosandboxHandle
>({
  listing,
  validId: validSandboxName,
  toHandle: (record, context) =>
    handleFor(record.name, context.labelsOf(record) ?? {}, record.createdAt, storedResources(record.configJson)),
});

/** microsandbox's list API (`GET /v1/sandboxes`, label filter, cursor pages) through the backend gate. */
function listing(context: MicrosandboxContext): SandboxListing<MsbSandboxHandle> {
  return {
    idOf: (record) => record.name,
    list: (filter, operation, budget) => {
      let cursor: string | undefined;
      let done = false;
      const nextPage = async () => {
        if (done) return undefined;
        const page = await context.entry(
          (statics) =>
            statics.listWith((list) => {
              const configured = list.labels({ ...filter }).limit(context.options.listPageSize);
              return cursor === undefined ? configured : configured.cursor(cursor);
            }),
          budget.signal,
        );
        cursor = page.nextCursor;
        done = cursor === undefined || cursor === "";
        return page.sandboxes;
      };
      return listPages(context, operation, budget, nextPage);
    },
  };
}
