import { LAUNCH_KEY_LABEL, type Labels, type OpOptions, OWNER_LABEL } from "@sandport/core";
import { type CallBudget, findIdsByLaunchKey, findOwned, getOwned, type SandboxListing } from "@sandport/core/adapter";
import type { VercelContext } from "./context.js";
import { handleFromRow, ourSandboxName, type VercelHandle, validSandboxName } from "./handle.js";
import type { VercelSandboxRow } from "./internal/sdk-types.js";
import { MAX_NAME_LENGTH, NAME_CHARACTERS } from "./ownership.js";

/**
 * Rebuilds a handle from a sandbox name (`getOwned`). A name outside the
 * prefix is `FOREIGN_SANDBOX` without a request; inside it, one walk of the
 * list API filtered by the exact name: absent → `undefined`, present without
 * our `sandport.owner` tag → `FOREIGN_SANDBOX`. Never `Sandbox.get`, which
 * can resume (and bill) a stopped sandbox.
 */
export function getById(context: VercelContext, name: string, op?: OpOptions): Promise<VercelHandle | undefined> {
  return getOwned(context, name, op, {
    timeoutMs: context.options.timeouts.lookupMs,
    validId: (id) => ourSandboxName(validSandboxName(id), context.options.namePrefix, "getById"),
    toHandle: handleFromRow,
  });
}

/**
 * Every sandbox of ours carrying all the given labels (`findOwned`; reserved
 * ones such as `sandport.launch-key` may be named, `{}` is every sandbox of
 * ours). Sandboxes whose abandoned launch is being cleaned up are not returned.
 */
export function findByLabels(context: VercelContext, labels: Labels, op?: OpOptions): Promise<VercelHandle[]> {
  return findOwned(context, labels, op, {
    ...vercelListing(context),
    timeoutMs: context.options.timeouts.lookupMs,
    toHandle: handleFromRow,
  });
}

/** Names of our sandboxes carrying `launchKey`, for the cleanup of an abandoned launch. */
export function findByLaunchKey(context: VercelContext, launchKey: string, budget: CallBudget): Promise<string[]> {
  return findIdsByLaunchKey(context, vercelListing(context), launchKey, budget);
}

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
