import { LAUNCH_KEY_LABEL, type Labels, type OpOptions, OWNER_LABEL, retry, validateLabelQuery } from "@sandport/core";
import { isOwnedBy, matchesLabels, PAGE_RETRY_POLICY } from "@sandport/core/adapter";
import type { CallTiming, DaytonaContext } from "./context.js";
import { mapDaytonaError } from "./errors.js";
import { type DaytonaHandle, handleFromSandbox, validSandboxId } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";

/**
 * Rebuilds a handle from a sandbox id. Resolves `undefined` when the sandbox
 * does not exist; rejects `FOREIGN_SANDBOX` when it lacks our ownership
 * label. One `GET /api/sandbox/{id}` through the low-level API (cancellable);
 * never starts a stopped sandbox.
 */
export function getById(context: DaytonaContext, sandboxId: string, op?: OpOptions): Promise<DaytonaHandle | undefined> {
  return context.run(op, { operation: "getById" }, context.options.timeouts.lookupMs, async (call) => {
    const found = await context.ownedRecord(validSandboxId(sandboxId), "getById", call);
    return found ? handleFromSandbox(found) : undefined;
  });
}

/**
 * Every sandbox of ours carrying all the given labels (reserved ones such as
 * `sandport.launch-key` may be named; `{}` is every sandbox of ours). Daytona
 * filters by labels; every page is walked, each row is checked again here,
 * and sandboxes without our ownership label are never returned. A walk that
 * fails on a 429 or 5xx starts again (a read is safe to repeat); it never
 * returns a partial list. Sandboxes whose abandoned launch is being cleaned up are hidden.
 */
export function findByLabels(context: DaytonaContext, labels: Labels, op?: OpOptions): Promise<DaytonaHandle[]> {
  return context.run(op, { operation: "findByLabels" }, context.options.timeouts.lookupMs, async (call) => {
    const query = validateLabelQuery(labels, "daytona");
    if (query[OWNER_LABEL] !== undefined && query[OWNER_LABEL] !== context.options.owner) return [];
    const found = await listOwned(context, query, "findByLabels", call);
    return found
      .filter((sandbox) => !context.condemned.has(sandbox.labels[LAUNCH_KEY_LABEL] as string))
      .map((sandbox) => handleFromSandbox(sandbox));
  });
}

/** Ids of our sandboxes carrying `launchKey`, for the cleanup of an abandoned launch (outside any port call). */
export async function findByLaunchKey(context: DaytonaContext, launchKey: string, timing: CallTiming): Promise<string[]> {
  const found = await listOwned(context, { [LAUNCH_KEY_LABEL]: launchKey }, "background cleanup", timing);
  return found.map((sandbox) => sandbox.id);
}

/** States a listed sandbox can be in and still be one to return (not on its way out). */
const GONE = new Set(["destroyed", "destroying"]);

/** Every sandbox of ours matching `query`, across every page; each one is remembered as ours. */
async function listOwned(
  context: DaytonaContext,
  query: Labels,
  operation: string,
  timing: CallTiming,
): Promise<DaytonaSandbox[]> {
  const { owner, listPageSize } = context.options;
  const filter = { ...query, [OWNER_LABEL]: owner };
  const client = await context.client();
  const walk = async () => {
    const all: DaytonaSandbox[] = [];
    try {
      for await (const sandbox of client.list({ labels: filter, limit: listPageSize })) all.push(sandbox);
    } catch (error) {
      throw mapDaytonaError(error, { operation });
    }
    return all;
  };
  const listed = await retry(walk, { policy: PAGE_RETRY_POLICY, ...(timing.signal ? { signal: timing.signal } : {}) });
  const unique = new Map<string, DaytonaSandbox>();
  for (const sandbox of listed) {
    if (!isOwnedBy(sandbox.labels, owner) || !matchesLabels(sandbox.labels, filter)) continue;
    if (sandbox.state !== undefined && GONE.has(sandbox.state)) continue;
    context.markOwned(sandbox.id);
    unique.set(sandbox.id, sandbox);
  }
  return [...unique.values()];
}
