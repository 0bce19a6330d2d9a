import type { Labels } from "../port/labels.js";
import type { OpOptions } from "../port/op-options.js";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "../port/reserved-labels.js";
import { validateLabelQuery } from "../validation/labels.js";
import type { AdapterContext, CallBudget, ContextOptions } from "./adapter-context.js";
import { isOwnedBy, matchesLabels } from "./ownership.js";

/** How one adapter lists its sandboxes: its vendor primitives for {@link findOwned} and {@link listOwned}. */
export interface SandboxListing<Info> {
  /**
   * Every sandbox matching `filter` (the query plus our ownership marker),
   * across every page (`collectPages`); the provider may filter loosely, the
   * recipe checks again. Errors are mapped by the caller's frame.
   */
  list(filter: Labels, operation: string, budget: CallBudget): Promise<readonly Info[]>;
  /** The sandbox id of a listed sandbox. */
  idOf(info: Info): string;
}

/** What {@link getOwned} needs besides the context. */
export interface GetOwnedOptions<Info, Handle> {
  /** Deadline of the call when `op.timeoutMs` is absent. */
  readonly timeoutMs: number;
  /** Refuses (`INVALID_REQUEST`) an id that cannot be one of the provider's, before any request. */
  readonly validId: (sandboxId: unknown) => string;
  /** The handle of an owned sandbox. */
  readonly toHandle: (info: Info) => Handle;
}

/**
 * `getById` of every adapter: the id checked, one lookup (`describe`, never a
 * connect), `undefined` when absent, `FOREIGN_SANDBOX` when not ours.
 */
export function getOwned<Info, Handle>(
  context: AdapterContext<ContextOptions, unknown, Info, unknown>,
  sandboxId: string,
  op: OpOptions | undefined,
  options: GetOwnedOptions<Info, Handle>,
): Promise<Handle | undefined> {
  return context.run(op, { operation: "getById" }, options.timeoutMs, async (call) => {
    const info = await context.ownedInfo(options.validId(sandboxId), "getById", call);
    return info === undefined ? undefined : options.toHandle(info);
  });
}

/**
 * Every sandbox of ours matching `query`, each once, each remembered as ours:
 * listed with our ownership marker added to the filter, then checked again
 * (owner and every label), since providers filter loosely. Condemned launches
 * are included: this is also the search of launch reclaim.
 */
export async function listOwned<Info>(
  context: AdapterContext<ContextOptions, unknown, Info, unknown>,
  listing: SandboxListing<Info>,
  query: Labels,
  operation: string,
  budget: CallBudget,
): Promise<Info[]> {
  const { owner } = context.options;
  const filter = { ...query, [OWNER_LABEL]: owner };
  const unique = new Map<string, Info>();
  for (const info of await listing.list(filter, operation, budget)) {
    const labels = context.labelsOf(info);
    if (!labels || !isOwnedBy(labels, owner) || !matchesLabels(labels, filter)) continue;
    const id = listing.idOf(info);
    context.known.markOwned(id);
    unique.set(id, info);
  }
  return [...unique.values()];
}

/** What {@link findOwned} needs besides the context. */
export interface FindOwnedOptions<Info, Handle> extends SandboxListing<Info> {
  /** Deadline of the call when `op.timeoutMs` is absent. */
  readonly timeoutMs: number;
  /** The handle of an owned sandbox. */
  readonly toHandle: (info: Info) => Handle;
}

/**
 * `findByLabels` of every adapter: the query validated (reserved labels may
 * be named, `{}` is every sandbox of ours), a query naming another owner
 * answered `[]` without a request, {@link listOwned}, then the sandboxes of
 * launches being destroyed in the background left out.
 */
export function findOwned<Info, Handle>(
  context: AdapterContext<ContextOptions, unknown, Info, unknown>,
  labels: Labels,
  op: OpOptions | undefined,
  options: FindOwnedOptions<Info, Handle>,
): Promise<Handle[]> {
  return context.run(op, { operation: "findByLabels" }, options.timeoutMs, async (call) => {
    const query = validateLabelQuery(labels, context.provider);
    if (query[OWNER_LABEL] !== undefined && query[OWNER_LABEL] !== context.options.owner) return [];
    const found = await listOwned(context, options, query, "findByLabels", call);
    return found.filter((info) => !context.isCondemned(context.labelsOf(info))).map(options.toHandle);
  });
}

/** Ids of our sandboxes carrying `launchKey`: the `findByLaunchKey` of launch reclaim (outside any port call). */
export async function findIdsByLaunchKey<Info>(
  context: AdapterContext<ContextOptions, unknown, Info, unknown>,
  listing: SandboxListing<Info>,
  launchKey: string,
  budget: CallBudget,
): Promise<string[]> {
  const found = await listOwned(context, listing, { [LAUNCH_KEY_LABEL]: launchKey }, "background cleanup", budget);
  return found.map((info) => listing.idOf(info));
}
