import { LAUNCH_KEY_LABEL, type Labels, type OpOptions, OWNER_LABEL, validateLabelQuery } from "@sandport/core";
import { collectPages, isOwnedBy, matchesLabels, metadataCodec } from "@sandport/core/adapter";
import type { CallTiming, E2BContext } from "./context.js";
import { mapE2BError } from "./errors.js";
import { type E2BHandle, handleFromInfo, PROVIDER, validSandboxId } from "./handle.js";
import type { E2BSandboxInfo } from "./internal/sdk-types.js";

/**
 * Rebuilds a handle from a sandbox id. Resolves `undefined` when the sandbox
 * does not exist; rejects `FOREIGN_SANDBOX` when it lacks our ownership marker.
 * One `GET /sandboxes/{id}`; never connects (which would resume a paused sandbox).
 */
export function getById(context: E2BContext, sandboxId: string, op?: OpOptions): Promise<E2BHandle | undefined> {
  return context.run(op, { operation: "getById" }, context.options.timeouts.lookupMs, async (call) => {
    const info = await context.ownedInfo(validSandboxId(sandboxId), "getById", call);
    return info ? handleFromInfo(info) : undefined;
  });
}

/**
 * Every sandbox of ours carrying all the given labels (reserved ones such as
 * `sandport.launch-key` may be named; `{}` is every sandbox of ours). Walks
 * every page of the list API; the metadata filter is applied by E2B and
 * checked again here, and sandboxes without our ownership marker are never
 * returned. Running and paused sandboxes are both listed; those whose
 * abandoned launch is being cleaned up are not.
 */
export function findByLabels(context: E2BContext, labels: Labels, op?: OpOptions): Promise<E2BHandle[]> {
  return context.run(op, { operation: "findByLabels" }, context.options.timeouts.lookupMs, async (call) => {
    const query = validateLabelQuery(labels, PROVIDER);
    if (query[OWNER_LABEL] !== undefined && query[OWNER_LABEL] !== context.options.owner) return [];
    const found = await listOwned(context, query, "findByLabels", call);
    const condemned = (info: E2BSandboxInfo) => context.condemned.has(info.metadata[LAUNCH_KEY_LABEL] as string);
    return found.filter((info) => !condemned(info)).map(handleFromInfo);
  });
}

/**
 * Ids of our sandboxes carrying `launchKey`, for the cleanup of an abandoned
 * launch (outside any port call, so with its own budget).
 */
export async function findByLaunchKey(context: E2BContext, launchKey: string, timing: CallTiming): Promise<string[]> {
  const found = await listOwned(context, { [LAUNCH_KEY_LABEL]: launchKey }, "background cleanup", timing);
  return found.map((info) => info.sandboxId);
}

/** Every sandbox of ours matching `query`, across every page; each one is remembered as ours. */
async function listOwned(
  context: E2BContext,
  query: Labels,
  operation: string,
  timing: CallTiming,
): Promise<E2BSandboxInfo[]> {
  const { owner, listPageSize } = context.options;
  const filter = { ...query, [OWNER_LABEL]: owner };
  const sdk = await context.sdk();
  const paginator = sdk.Sandbox.list({
    ...context.fields({ remainingMs: timing.remainingMs }),
    query: { metadata: filter, state: ["running", "paused"] },
    limit: listPageSize,
  });
  const infos = await collectPages(
    async () => (paginator.hasNext ? paginator.nextItems(context.fields(timing)) : undefined),
    { mapError: (error) => mapE2BError(error, { operation }), ...(timing.signal ? { signal: timing.signal } : {}) },
  );
  const unique = new Map<string, E2BSandboxInfo>();
  for (const info of infos) {
    const labels = metadataCodec.decode(info.metadata);
    if (!labels || !isOwnedBy(labels, owner) || !matchesLabels(labels, filter)) continue;
    context.known.markOwned(info.sandboxId);
    unique.set(info.sandboxId, info);
  }
  return [...unique.values()];
}
