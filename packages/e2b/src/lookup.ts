import type { Labels, OpOptions } from "@sandport/core";
import {
  type CallBudget,
  collectPages,
  findIdsByLaunchKey,
  findOwned,
  getOwned,
  type SandboxListing,
} from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { type E2BHandle, handleFromInfo, validSandboxId } from "./handle.js";
import type { E2BSandboxInfo } from "./internal/sdk-types.js";

/**
 * Rebuilds a handle from a sandbox id (`getOwned`). Resolves `undefined` when
 * the sandbox does not exist; rejects `FOREIGN_SANDBOX` when it lacks our
 * ownership marker. One `GET /sandboxes/{id}`; never connects (which would
 * resume a paused sandbox).
 */
export function getById(context: E2BContext, sandboxId: string, op?: OpOptions): Promise<E2BHandle | undefined> {
  return getOwned(context, sandboxId, op, {
    timeoutMs: context.options.timeouts.lookupMs,
    validId: validSandboxId,
    toHandle: handleFromInfo,
  });
}

/**
 * Every sandbox of ours carrying all the given labels (`findOwned`): E2B
 * filters by metadata and the recipe checks again. Running and paused
 * sandboxes are both listed; those whose abandoned launch is being cleaned up are not.
 */
export function findByLabels(context: E2BContext, labels: Labels, op?: OpOptions): Promise<E2BHandle[]> {
  return findOwned(context, labels, op, {
    ...e2bListing(context),
    timeoutMs: context.options.timeouts.lookupMs,
    toHandle: handleFromInfo,
  });
}

/** Ids of our sandboxes carrying `launchKey`, for the cleanup of an abandoned launch. */
export function findByLaunchKey(context: E2BContext, launchKey: string, budget: CallBudget): Promise<string[]> {
  return findIdsByLaunchKey(context, e2bListing(context), launchKey, budget);
}

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
      return collectPages(async () => (paginator.hasNext ? paginator.nextItems(context.fields(budget)) : undefined), {
        mapError: (error) => context.mapError(error, { operation }),
        ...(budget.signal ? { signal: budget.signal } : {}),
      });
    },
  };
}
