import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { ownedLookups, type SandboxListing } from "@sandport/core/adapter";
import type { VercelContext } from "./context.js";
import { handleFromRow, ourSandboxName, type VercelHandle, validSandboxName } from "./handle.js";
import type { VercelSandboxRow } from "./internal/sdk-types.js";
import { MAX_NAME_LENGTH, NAME_CHARACTERS } from "./ownership.js";

/**
 * `getById` (`getOwned`: a name outside the prefix is `FOREIGN_SANDBOX`
 * without a request; inside it, one walk of the list API filtered by the
 * exact name; never `Sandbox.get`, which can resume, and bill, a stopped
 * sandbox), `findByLabels` (`findOwned`) and `findByLaunchKey` (names of our
 * sandboxes carrying it, for the cleanup of an abandoned launch).
 */
export const { getById, findByLabels, findByLaunchKey } = ownedLookups<VercelContext, VercelSandboxRow, VercelHandle>({
  listing: vercelListing,
  validId: (id, context) => ourSandboxName(validSandboxName(id), context.options.namePrefix, "getById"),
  toHandle: handleFromRow,
});

/**
 * Vercel's list API, which filters by a name prefix and one tag: the prefix
 * is ours, narrowed to the launch key's name when the query names one, and
 * the tag a caller label of the query, else our ownership tag. The recipe
 * checks every row again, so a server that ignored a filter never hands
 * back someone else's sandbox.
 */
function vercelListing(context: VercelContext): SandboxListing<VercelSandboxRow> {
  return {
    idOf: (row) => row.name,
    list: async (filter, operation, budget) => {
      const { ownership } = context;
      const launchKey = filter[LAUNCH_KEY_LABEL];
      const namePrefix = launchKey === undefined ? ownership.prefix : ownership.nameFor(launchKey);
      // A launch key no sandbox name can hold matches nothing: the API would refuse the prefix.
      if (namePrefix.length > MAX_NAME_LENGTH || !NAME_CHARACTERS.test(namePrefix)) return [];
      const [key, value] = Object.entries(filter).find(([name]) => !name.startsWith("sandport.")) ?? [
        OWNER_LABEL,
        context.options.owner,
      ];
      return context.list({ namePrefix, tags: { [key]: value } }, operation, budget);
    },
  };
}
