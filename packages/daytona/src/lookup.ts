import { LAUNCH_KEY_LABEL, type Labels, type OpOptions, OWNER_LABEL, validateLabelQuery } from "@sandport/core";
import { collectPages, isOwnedBy, matchesLabels } from "@sandport/core/adapter";
import type { CallTiming, DaytonaContext } from "./context.js";
import { mapDaytonaError } from "./errors.js";
import { type DaytonaHandle, handleFromSandbox, validSandboxId } from "./handle.js";
import type { DaytonaSandboxRecord } from "./internal/sdk-types.js";

/**
 * Rebuilds a handle from a sandbox id. Resolves `undefined` when the sandbox
 * does not exist; rejects `FOREIGN_SANDBOX` when it lacks our ownership
 * label. One `GET /api/sandbox/{id}` through the low-level API (cancellable);
 * never starts a stopped sandbox.
 */
export function getById(
  context: DaytonaContext,
  sandboxId: string,
  op?: OpOptions,
): Promise<DaytonaHandle | undefined> {
  return context.run(op, { operation: "getById" }, context.options.timeouts.lookupMs, async (call) => {
    const found = await context.ownedRecord(validSandboxId(sandboxId), "getById", call);
    return found ? handleFromSandbox(found) : undefined;
  });
}

/**
 * Every sandbox of ours carrying all the given labels (reserved ones such as
 * `sandport.launch-key` may be named; `{}` is every sandbox of ours). Daytona
 * filters by labels; every page is walked (each retried on 429 and 5xx, never
 * a partial list), each row is checked again here, and sandboxes without our
 * ownership label are never returned. Sandboxes in state `error` are listed
 * (so a failed launch can be cleaned up); those being destroyed, and those
 * whose abandoned launch is being cleaned up, are not.
 */
export function findByLabels(context: DaytonaContext, labels: Labels, op?: OpOptions): Promise<DaytonaHandle[]> {
  return context.run(op, { operation: "findByLabels" }, context.options.timeouts.lookupMs, async (call) => {
    const query = validateLabelQuery(labels, "daytona");
    if (query[OWNER_LABEL] !== undefined && query[OWNER_LABEL] !== context.options.owner) return [];
    const found = await listOwned(context, query, "findByLabels", call);
    return found
      .filter((sandbox) => !context.condemned.has(sandbox.labels?.[LAUNCH_KEY_LABEL] as string))
      .map((sandbox) => handleFromSandbox(sandbox));
  });
}

/** Ids of our sandboxes carrying `launchKey`, for the cleanup of an abandoned launch (outside any port call). */
export async function findByLaunchKey(
  context: DaytonaContext,
  launchKey: string,
  timing: CallTiming,
): Promise<string[]> {
  const found = await listOwned(context, { [LAUNCH_KEY_LABEL]: launchKey }, "background cleanup", timing);
  return found.map((sandbox) => sandbox.id);
}

/** States of a listed sandbox that is on its way out, or gone. */
const GONE = new Set(["destroyed", "destroying"]);

/**
 * Every sandbox of ours matching `query`, across every page of the
 * low-level list API (sandboxes in state `error` included: a failed launch
 * must be found to be cleaned up); each page is retried on 429 and 5xx, and
 * each one found is remembered as ours.
 */
async function listOwned(
  context: DaytonaContext,
  query: Labels,
  operation: string,
  timing: CallTiming,
): Promise<DaytonaSandboxRecord[]> {
  const { owner, listPageSize } = context.options;
  const filter = { ...query, [OWNER_LABEL]: owner };
  const api = await context.api();
  const labels = JSON.stringify(filter);
  let cursor: string | undefined;
  let done = false;
  const listed = await collectPages(
    async () => {
      if (done) return undefined;
      const { data } = await api.listSandboxes(undefined, cursor, listPageSize, undefined, undefined, labels, true);
      cursor = data.nextCursor ?? undefined;
      done = cursor === undefined;
      return data.items;
    },
    { mapError: (error) => mapDaytonaError(error, { operation }), ...(timing.signal ? { signal: timing.signal } : {}) },
  );
  const unique = new Map<string, DaytonaSandboxRecord>();
  for (const sandbox of listed) {
    const stored = sandbox.labels ?? {};
    if (!isOwnedBy(stored, owner) || !matchesLabels(stored, filter)) continue;
    if (sandbox.state !== undefined && GONE.has(sandbox.state)) continue;
    context.known.markOwned(sandbox.id);
    unique.set(sandbox.id, sandbox);
  }
  return [...unique.values()];
}
