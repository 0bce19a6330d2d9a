import { LAUNCH_KEY_LABEL, type Labels, type OpOptions, OWNER_LABEL, retry, validateLabelQuery } from "@sandport/core";
import { isOwnedBy, matchesLabels, PAGE_RETRY_POLICY } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { isNotFound, mapModalError } from "./errors.js";
import { handleFromTags, type ModalHandle, PROVIDER, validSandboxId } from "./handle.js";

/** How many sandboxes' tags are fetched at once after a listing. */
const TAG_READS_AT_ONCE = 8;

/**
 * Rebuilds a handle from a sandbox id. Resolves `undefined` when the sandbox
 * does not exist or has finished; rejects `FOREIGN_SANDBOX` when it lacks our
 * ownership tag. Two requests: a poll and the tags.
 */
export function getById(context: ModalContext, sandboxId: string, op?: OpOptions): Promise<ModalHandle | undefined> {
  return context.run(op, { operation: "getById" }, context.options.timeouts.lookupMs, async () => {
    const found = await context.ownedSandbox(validSandboxId(sandboxId), "getById");
    return found ? handleFromTags(sandboxId, found.tags) : undefined;
  });
}

/**
 * Every running sandbox of ours carrying all the given labels (reserved ones
 * such as `sandport.launch-key` may be named; `{}` is every sandbox of ours).
 * Modal filters by tag on the server, within the configured App; each match's
 * tags are then read (one request each: the listing carries none) and checked
 * again here, so sandboxes without our ownership tag are never returned. The
 * whole listing is repeated on a retryable failure (a read); those whose
 * abandoned launch is being cleaned up are left out.
 */
export function findByLabels(context: ModalContext, labels: Labels, op?: OpOptions): Promise<ModalHandle[]> {
  return context.run(op, { operation: "findByLabels" }, context.options.timeouts.lookupMs, async (call) => {
    const query = validateLabelQuery(labels, PROVIDER);
    if (query[OWNER_LABEL] !== undefined && query[OWNER_LABEL] !== context.options.owner) return [];
    const found = await retry(() => listOwned(context, query, "findByLabels"), {
      policy: PAGE_RETRY_POLICY,
      signal: call.signal,
    });
    return found
      .filter(({ tags }) => !context.condemned.has(tags[LAUNCH_KEY_LABEL] as string))
      .map(({ id, tags }) => handleFromTags(id, tags));
  });
}

/** Ids of our running sandboxes carrying `launchKey`, for the cleanup of an abandoned launch. */
export async function findByLaunchKey(context: ModalContext, launchKey: string): Promise<string[]> {
  const found = await listOwned(context, { [LAUNCH_KEY_LABEL]: launchKey }, "background cleanup");
  return found.map(({ id }) => id);
}

/** Every running sandbox of ours in the App matching `query`, with its tags; each one is remembered as ours. */
async function listOwned(
  context: ModalContext,
  query: Labels,
  operation: string,
): Promise<{ readonly id: string; readonly tags: Readonly<Record<string, string>> }[]> {
  const { owner, environment } = context.options;
  const filter = { ...query, [OWNER_LABEL]: owner };
  try {
    const [client, app] = await Promise.all([context.client(), context.app()]);
    const listed = [];
    for await (const sandbox of client.sandboxes.list({ appId: app.appId, tags: filter, environment })) {
      listed.push(sandbox);
    }
    const found = [];
    for (let start = 0; start < listed.length; start += TAG_READS_AT_ONCE) {
      const batch = listed.slice(start, start + TAG_READS_AT_ONCE);
      const tagged = await Promise.all(
        batch.map((sandbox) =>
          sandbox.getTags().then(
            (tags) => ({ sandbox, tags }),
            (error: unknown) => {
              // Finished between the listing and the read: not running, so not found.
              if (isNotFound(error)) return undefined;
              throw error;
            },
          ),
        ),
      );
      for (const entry of tagged) {
        if (!entry || !isOwnedBy(entry.tags, owner) || !matchesLabels(entry.tags, filter)) continue;
        context.remember(entry.sandbox);
        found.push({ id: entry.sandbox.sandboxId, tags: entry.tags });
      }
    }
    return found;
  } catch (error) {
    throw mapModalError(error, { operation });
  }
}
