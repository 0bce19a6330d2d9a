import { type Labels, type OpOptions, retry } from "@sandport/core";
import {
  type CallBudget,
  findIdsByLaunchKey,
  findOwned,
  getOwned,
  PAGE_RETRY_POLICY,
  type SandboxListing,
} from "@sandport/core/adapter";
import type { ModalContext, ModalSandboxInfo } from "./context.js";
import { isNotFound } from "./errors.js";
import { handleFromTags, type ModalHandle, validSandboxId } from "./handle.js";
import { inScope } from "./internal/call-scope.js";

/** How many sandboxes' tags are fetched at once after a listing. */
const TAG_READS_AT_ONCE = 8;

/**
 * Rebuilds a handle from a sandbox id (`getOwned`). Resolves `undefined` when
 * the sandbox does not exist or has finished; rejects `FOREIGN_SANDBOX` when
 * it lacks our ownership tag. Two requests: a poll and the tags.
 */
export function getById(context: ModalContext, sandboxId: string, op?: OpOptions): Promise<ModalHandle | undefined> {
  return getOwned(context, sandboxId, op, {
    timeoutMs: context.options.timeouts.lookupMs,
    validId: validSandboxId,
    toHandle,
  });
}

/**
 * Every running sandbox of ours carrying all the given labels (`findOwned`):
 * Modal filters by tag on the server, within the configured App; each match's
 * tags are then read (one request each: the listing carries none) and the
 * recipe checks them again. Those whose abandoned launch is being cleaned up
 * are left out.
 */
export function findByLabels(context: ModalContext, labels: Labels, op?: OpOptions): Promise<ModalHandle[]> {
  return findOwned(context, labels, op, {
    ...modalListing(context),
    timeoutMs: context.options.timeouts.lookupMs,
    toHandle,
  });
}

/** Ids of our running sandboxes carrying `launchKey`, for the cleanup of an abandoned launch. */
export function findByLaunchKey(context: ModalContext, launchKey: string, budget: CallBudget): Promise<string[]> {
  return findIdsByLaunchKey(context, modalListing(context), launchKey, budget);
}

function toHandle(info: ModalSandboxInfo): ModalHandle {
  return handleFromTags(info.sandbox.sandboxId, info.tags);
}

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
          sandbox.getTags().then(
            (tags) => ({ sandbox, tags }),
            (error: unknown) => {
              if (isNotFound(error)) return undefined;
              throw error;
            },
          ),
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
