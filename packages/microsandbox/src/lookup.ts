import type { Labels, OpOptions } from "@sandport/core";
import {
  type CallBudget,
  collectPages,
  findIdsByLaunchKey,
  findOwned,
  getOwned,
  type SandboxListing,
} from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { handleFor, type MicrosandboxHandle, validSandboxName } from "./handle.js";
import type { MsbSandboxHandle } from "./internal/sdk-types.js";

/**
 * Rebuilds a handle from a sandbox name (`getOwned`). Resolves `undefined`
 * when the sandbox does not exist; rejects `FOREIGN_SANDBOX` when it lacks
 * our ownership marker. One `GET /v1/sandboxes/by-name/:name`; never attaches.
 */
export function getById(
  context: MicrosandboxContext,
  name: string,
  op?: OpOptions,
): Promise<MicrosandboxHandle | undefined> {
  return getOwned(context, name, op, {
    timeoutMs: context.options.timeouts.lookupMs,
    validId: validSandboxName,
    toHandle: (record) => toHandle(context, record),
  });
}

/**
 * Every sandbox of ours carrying all the given labels (`findOwned`):
 * microsandbox filters by label and the recipe checks again, across every
 * page. Running and stopped sandboxes are both listed; those whose abandoned
 * launch is being cleaned up are not.
 */
export function findByLabels(
  context: MicrosandboxContext,
  labels: Labels,
  op?: OpOptions,
): Promise<MicrosandboxHandle[]> {
  return findOwned(context, labels, op, {
    ...listing(context),
    timeoutMs: context.options.timeouts.lookupMs,
    toHandle: (record) => toHandle(context, record),
  });
}

/** Names of our sandboxes carrying `launchKey`, for the cleanup of an abandoned launch. */
export function findByLaunchKey(
  context: MicrosandboxContext,
  launchKey: string,
  budget: CallBudget,
): Promise<string[]> {
  return findIdsByLaunchKey(context, listing(context), launchKey, budget);
}

function toHandle(context: MicrosandboxContext, record: MsbSandboxHandle): MicrosandboxHandle {
  return handleFor(record.name, context.labelsOf(record) ?? {}, record.createdAt);
}

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
      return collectPages(nextPage, {
        mapError: (error) => context.mapError(error, { operation }),
        ...(budget.signal ? { signal: budget.signal } : {}),
      });
    },
  };
}
