import type { Labels, OpOptions } from "@sandport/core";
import {
  type CallBudget,
  collectPages,
  findIdsByLaunchKey,
  findOwned,
  getOwned,
  type SandboxListing,
} from "@sandport/core/adapter";
import type { DaytonaContext } from "./context.js";
import { type DaytonaHandle, handleFromSandbox, validSandboxId } from "./handle.js";
import type { DaytonaSandboxRecord } from "./internal/sdk-types.js";

/** States of a listed sandbox that is on its way out, or gone. */
const GONE = new Set(["destroyed", "destroying"]);

/**
 * Rebuilds a handle from a sandbox id (`getOwned`). Resolves `undefined` when
 * the sandbox does not exist; rejects `FOREIGN_SANDBOX` when it lacks our
 * ownership label. One `GET /api/sandbox/{id}` through the low-level API
 * (cancellable); never starts a stopped sandbox.
 */
export function getById(
  context: DaytonaContext,
  sandboxId: string,
  op?: OpOptions,
): Promise<DaytonaHandle | undefined> {
  return getOwned(context, sandboxId, op, {
    timeoutMs: context.options.timeouts.lookupMs,
    validId: validSandboxId,
    toHandle: handleFromSandbox,
  });
}

/**
 * Every sandbox of ours carrying all the given labels (`findOwned`): Daytona
 * filters by labels and the recipe checks again. Sandboxes in state `error`
 * are listed (so a failed launch can be cleaned up); those being destroyed,
 * and those whose abandoned launch is being cleaned up, are not.
 */
export function findByLabels(context: DaytonaContext, labels: Labels, op?: OpOptions): Promise<DaytonaHandle[]> {
  return findOwned(context, labels, op, {
    ...daytonaListing(context),
    timeoutMs: context.options.timeouts.lookupMs,
    toHandle: handleFromSandbox,
  });
}

/** Ids of our sandboxes carrying `launchKey`, for the cleanup of an abandoned launch. */
export function findByLaunchKey(context: DaytonaContext, launchKey: string, budget: CallBudget): Promise<string[]> {
  return findIdsByLaunchKey(context, daytonaListing(context), launchKey, budget);
}

/** Daytona's list API (low-level, label filter, every page, sandboxes in state `error` included), without those on their way out. */
function daytonaListing(context: DaytonaContext): SandboxListing<DaytonaSandboxRecord> {
  return {
    idOf: (sandbox) => sandbox.id,
    list: async (filter, operation, budget) => {
      const api = await context.api();
      const labels = JSON.stringify(filter);
      let cursor: string | undefined;
      let done = false;
      const listed = await collectPages(
        async () => {
          if (done) return undefined;
          const size = context.options.listPageSize;
          const { data } = await api.listSandboxes(undefined, cursor, size, undefined, undefined, labels, true);
          cursor = data.nextCursor ?? undefined;
          done = cursor === undefined;
          return data.items;
        },
        {
          mapError: (error) => context.mapError(error, { operation }),
          ...(budget.signal ? { signal: budget.signal } : {}),
        },
      );
      return listed.filter((sandbox) => sandbox.state === undefined || !GONE.has(sandbox.state));
    },
  };
}
