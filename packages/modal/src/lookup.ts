import { type Labels, retry } from "@sandport/core";
import { ownedLookups, PAGE_RETRY_POLICY, type SandboxListing, whenAbsent } from "@sandport/core/adapter";
import type { ModalContext, ModalSandboxInfo } from "./context.js";
import { isNotFound } from "./errors.js";
import { handleFromTags, type ModalHandle, validSandboxId } from "./handle.js";
import { inScope } from "./internal/call-scope.js";

/** How many sandboxes' tags are fetched at once after a listing. */
const TAG_READS_AT_ONCE = 8;

/**
 * `getById` (`getOwned`: a poll and the tags; a finished sandbox is absent),
 * `findByLabels` (`findOwned`: every running sandbox of ours carrying the
 * labels, filtered by tag on the server within the configured App, each
 * match's tags read and checked again) and `findByLaunchKey` (for the cleanup
 * of an abandoned launch).
 */
export const { getById, findByLabels, findByLaunchKey } = ownedLookups<ModalContext, ModalSandboxInfo, ModalHandle>({
  listing: modalListing,
  validId: validSandboxId,
  toHandle: (info) => handleFromTags(info.sandbox.sandboxId, info.tags),
});

/**
 * Modal's listing: the App's running sandboxes filtered by tag on the server,
 * then each one's tags, a few at a time (one that finished in between is not
 * running, so not listed). The whole listing is repeated on a retryable
 * failure (a read), never returned in part.
 */
function modalListing(context: ModalContext): SandboxListing<ModalSandboxInfo> {
  const listOnce = async (filter: Labels) => {
    const [client, app] = await Promise.all([context.client(), context.app()]);
    const listed = [];
    const { environment } = context.options;
    for await (const sandbox of client.sandboxes.list({ appId: app.appId, tags: filter, environment })) {
      listed.push(sandbox);
    }
    const found: ModalSandboxInfo[] = [];
    for (let start = 0; start < listed.length; start += TAG_READS_AT_ONCE) {
      const batch = listed.slice(start, start + TAG_READS_AT_ONCE);
      const tagged = await Promise.all(
        batch.map((sandbox) =>
          sandbox.getTags().then((tags) => ({ sandbox, tags }), whenAbsent(isNotFound, undefined)),
        ),
      );
      for (const entry of tagged) if (entry) found.push(entry);
    }
    return found;
  };
  return {
    idOf: (info) => info.sandbox.sandboxId,
    list: (filter, operation, budget) =>
      inScope(budget, () =>
        retry(
          () =>
            listOnce(filter).catch((error: unknown) => {
              throw context.mapError(error, { operation });
            }),
          { policy: PAGE_RETRY_POLICY, ...(budget.signal ? { signal: budget.signal } : {}) },
        ),
      ),
  };
}
