import { LAUNCH_KEY_LABEL, type Labels, type OpOptions, OWNER_LABEL, validateLabelQuery } from "@sandport/core";
import { collectPages, foreignSandbox, isOwnedBy, matchesLabels } from "@sandport/core/adapter";
import type { CallTiming, VercelContext } from "./context.js";
import { mapVercelError } from "./errors.js";
import { handleFromRow, PROVIDER, type VercelHandle, validSandboxName } from "./handle.js";
import type { VercelSandboxRow } from "./internal/sdk-types.js";
import { MAX_NAME_LENGTH, NAME_CHARACTERS } from "./ownership.js";

/**
 * Rebuilds a handle from a sandbox name. A name outside the prefix is
 * `FOREIGN_SANDBOX` without a request; inside it, one walk of the list API
 * filtered by the exact name: absent → `undefined`, present without our
 * `sandport.owner` tag → `FOREIGN_SANDBOX`. Never `Sandbox.get`, which can
 * resume (and bill) a stopped sandbox.
 */
export function getById(context: VercelContext, name: string, op?: OpOptions): Promise<VercelHandle | undefined> {
  return context.operations.run(op, { operation: "getById" }, context.options.timeouts.lookupMs, async (call) => {
    const ours = context.ourName(validSandboxName(name), "getById");
    const row = await findOwnedRow(context, ours, "getById", call);
    return row ? handleFromRow(row) : undefined;
  });
}

/**
 * Every sandbox of ours carrying all the given labels (reserved ones such as
 * `sandport.launch-key` may be named; `{}` is every sandbox of ours). The list
 * API filters by the name prefix (narrowed to the launch key when the query
 * names one) and by one tag (a caller label of the query, else the ownership
 * tag); every row is then checked again here, so a server that ignored a
 * filter never hands back someone else's sandbox. Sandboxes whose abandoned
 * launch is being cleaned up are not returned.
 */
export function findByLabels(context: VercelContext, labels: Labels, op?: OpOptions): Promise<VercelHandle[]> {
  return context.operations.run(op, { operation: "findByLabels" }, context.options.timeouts.lookupMs, async (call) => {
    const query = validateLabelQuery(labels, PROVIDER);
    const found = await listOwned(context, query, "findByLabels", call);
    return found.filter((row) => !context.condemned.has(launchKeyOf(context, row))).map(handleFromRow);
  });
}

/** Names of our sandboxes carrying `launchKey`, for the cleanup of an abandoned launch. */
export async function findByLaunchKey(
  context: VercelContext,
  launchKey: string,
  timing: CallTiming,
): Promise<string[]> {
  const found = await listOwned(context, { [LAUNCH_KEY_LABEL]: launchKey }, "background cleanup", timing);
  return found.map((row) => row.name);
}

/**
 * The list row of `name` (inside the prefix): `undefined` when the list has
 * no such name, `FOREIGN_SANDBOX` when it lacks our ownership tag. The
 * sandbox is remembered as ours, with its creation time.
 */
export async function findOwnedRow(
  context: VercelContext,
  name: string,
  operation: string,
  timing: CallTiming,
): Promise<VercelSandboxRow | undefined> {
  const row = await findRow(context, name, operation, timing);
  if (row === undefined) return undefined;
  if (!context.ownership.owns(row)) {
    throw foreignSandbox(
      PROVIDER,
      name,
      operation,
      `it does not carry the ${OWNER_LABEL} tag of ${context.options.owner}`,
    );
  }
  context.markOwned(name, row.createdAt);
  return row;
}

/** The list row named exactly `name`, whoever owns it; `undefined` when there is none. */
export async function findRow(
  context: VercelContext,
  name: string,
  operation: string,
  timing: CallTiming,
): Promise<VercelSandboxRow | undefined> {
  const rows = await listRows(context, { namePrefix: name }, operation, timing);
  return rows.find((row) => row.name === name);
}

/** Every sandbox of ours matching `query`, across every page; each one is remembered as ours. */
async function listOwned(
  context: VercelContext,
  query: Labels,
  operation: string,
  timing: CallTiming,
): Promise<VercelSandboxRow[]> {
  const { ownership, options } = context;
  if (query[OWNER_LABEL] !== undefined && query[OWNER_LABEL] !== options.owner) return [];
  const launchKey = query[LAUNCH_KEY_LABEL];
  if (launchKey !== undefined && !canBeInName(ownership.nameFor(launchKey))) return [];
  const [tagKey, tagValue] = Object.entries(query).find(([key]) => !key.startsWith("sandport.")) ?? [
    OWNER_LABEL,
    options.owner,
  ];
  const namePrefix = launchKey === undefined ? ownership.prefix : ownership.nameFor(launchKey);
  const rows = await listRows(context, { namePrefix, tags: { [tagKey]: tagValue } }, operation, timing);
  const filter = { ...query, [OWNER_LABEL]: options.owner };
  return rows.filter((row) => {
    const labels = ownership.decode(row);
    if (!labels || !isOwnedBy(labels, options.owner) || !matchesLabels(labels, filter)) return false;
    context.markOwned(row.name, row.createdAt);
    return true;
  });
}

/** Every row the list API gives for `filter`, across every page, each name once. */
async function listRows(
  context: VercelContext,
  filter: { readonly namePrefix: string; readonly tags?: Record<string, string> },
  operation: string,
  timing: CallTiming,
): Promise<VercelSandboxRow[]> {
  const sdk = await context.sdk();
  let cursor: string | undefined;
  let done = false;
  const rows = await collectPages(
    async () => {
      if (done) return undefined;
      const page = await sdk.Sandbox.list({
        ...context.connection(timing),
        ...filter,
        // The API refuses `namePrefix` unless the list is sorted by name.
        sortBy: "name",
        limit: context.options.listPageSize,
        ...(cursor === undefined ? {} : { cursor }),
      });
      cursor = page.pagination.next ?? undefined;
      done = cursor === undefined;
      return page.sandboxes;
    },
    { signal: timing.signal, mapError: (error) => mapVercelError(error, { operation }) },
  );
  const unique = new Map<string, VercelSandboxRow>();
  for (const row of rows) unique.set(row.name, row);
  return [...unique.values()];
}

function launchKeyOf(context: VercelContext, row: VercelSandboxRow): string {
  return row.name.slice(context.ownership.prefix.length);
}

function canBeInName(name: string): boolean {
  return name.length <= MAX_NAME_LENGTH && NAME_CHARACTERS.test(name);
}
