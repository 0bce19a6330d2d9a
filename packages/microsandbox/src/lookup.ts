import { LAUNCH_KEY_LABEL, type Labels, type OpOptions, OWNER_LABEL, validateLabelQuery } from "@sandport/core";
import { collectPages, isOwnedBy, matchesLabels, metadataCodec } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { mapMicrosandboxError } from "./errors.js";
import { handleFor, type MicrosandboxHandle, PROVIDER, storedLabels, validSandboxName } from "./handle.js";
import type { MsbSandboxHandle } from "./internal/sdk-types.js";

/**
 * Rebuilds a handle from a sandbox name. Resolves `undefined` when the
 * sandbox does not exist; rejects `FOREIGN_SANDBOX` when it lacks our
 * ownership marker. One `GET /v1/sandboxes/by-name/:name`; never attaches.
 */
export function getById(
  context: MicrosandboxContext,
  name: string,
  op?: OpOptions,
): Promise<MicrosandboxHandle | undefined> {
  return context.run(op, { operation: "getById" }, "lookupMs", async (call) => {
    const owned = await context.ownedRecord(validSandboxName(name), "getById", call.signal);
    return owned ? handleFor(owned.record.name, owned.labels, owned.record.createdAt) : undefined;
  });
}

/**
 * Every sandbox of ours carrying all the given labels (reserved ones such as
 * `sandport.launch-key` may be named; `{}` is every sandbox of ours). The
 * label filter (the query plus our ownership marker) is applied by
 * microsandbox and checked again here across every page; sandboxes without
 * our marker are never returned, nor those whose abandoned launch is being
 * cleaned up. Running and stopped sandboxes are both listed.
 */
export function findByLabels(
  context: MicrosandboxContext,
  labels: Labels,
  op?: OpOptions,
): Promise<MicrosandboxHandle[]> {
  return context.run(op, { operation: "findByLabels" }, "lookupMs", async (call) => {
    const query = validateLabelQuery(labels, PROVIDER);
    if (query[OWNER_LABEL] !== undefined && query[OWNER_LABEL] !== context.options.owner) return [];
    const found = await listOwned(context, query, "findByLabels", call.signal);
    return found
      .filter(({ labels: stored }) => !context.condemned.has(stored[LAUNCH_KEY_LABEL] as string))
      .map(({ record, labels: stored }) => handleFor(record.name, stored, record.createdAt));
  });
}

/** Names of our sandboxes carrying `launchKey`, for the cleanup of an abandoned launch. */
export async function findByLaunchKey(context: MicrosandboxContext, launchKey: string): Promise<string[]> {
  const found = await listOwned(context, { [LAUNCH_KEY_LABEL]: launchKey }, "background cleanup");
  return found.map(({ record }) => record.name);
}

/** A listed sandbox of ours and its labels. */
interface Listed {
  readonly record: MsbSandboxHandle;
  readonly labels: Readonly<Record<string, string>>;
}

/** Every sandbox of ours matching `query`, across every page (each page retried on retryable errors). */
async function listOwned(
  context: MicrosandboxContext,
  query: Labels,
  operation: string,
  signal?: AbortSignal,
): Promise<Listed[]> {
  const { owner, listPageSize } = context.options;
  const filter = { ...query, [OWNER_LABEL]: owner };
  let cursor: string | undefined;
  let done = false;
  const records = await collectPages<MsbSandboxHandle>(
    async () => {
      if (done) return undefined;
      const page = await context.entry(
        (statics) =>
          statics.listWith((list) => {
            const configured = list.labels({ ...filter }).limit(listPageSize);
            return cursor === undefined ? configured : configured.cursor(cursor);
          }),
        signal,
      );
      cursor = page.nextCursor;
      done = cursor === undefined || cursor === "";
      return page.sandboxes;
    },
    { mapError: (error) => mapMicrosandboxError(error, { operation }), ...(signal ? { signal } : {}) },
  );
  const unique = new Map<string, Listed>();
  for (const record of records) {
    const labels = metadataCodec.decode(storedLabels(record.configJson));
    if (!labels || !isOwnedBy(labels, owner) || !matchesLabels(labels, filter)) continue;
    context.markOwned(record.name);
    unique.set(record.name, { record, labels });
  }
  return [...unique.values()];
}
