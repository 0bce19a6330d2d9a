import type { Labels } from "../port/labels.js";
import type { OpOptions } from "../port/op-options.js";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "../port/reserved-labels.js";
import { validateLabelQuery } from "../validation/labels.js";
import type { AdapterContext, CallBudget, ContextOptions } from "./adapter-context.js";
import { collectPages } from "./collect-pages.js";
import type { ErrorMapper } from "./error-mapper.js";
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

/**
 * Every item of a provider's listing for `operation`, walked page by page
 * (`collectPages`, each page retried): what fetching a page throws goes
 * through the context's `mapError`, and the budget's signal stops the walk.
 * The body of most {@link SandboxListing}s' `list`.
 */
export function listPages<T>(
  context: { readonly mapError: ErrorMapper },
  operation: string,
  budget: CallBudget,
  nextPage: () => Promise<readonly T[] | undefined>,
): Promise<T[]> {
  return collectPages(nextPage, {
    mapError: (error) => context.mapError(error, { operation }),
    ...(budget.signal ? { signal: budget.signal } : {}),
  });
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

/** The options an adapter context of {@link ownedLookups} reads: the lookups' deadline. */
export interface LookupOptions extends ContextOptions {
  readonly timeouts: { readonly lookupMs: number };
}

/** What {@link ownedLookups} is built from: one adapter's vendor listing, id check and handle. */
export interface OwnedLookupSettings<Context, Info, Handle> {
  /** The vendor's listing for one context (`list` and `idOf`). */
  readonly listing: (context: Context) => SandboxListing<Info>;
  /** Refuses (`INVALID_REQUEST`, or `FOREIGN_SANDBOX`) an id that cannot be one of ours, before any request. */
  readonly validId: (sandboxId: unknown, context: Context) => string;
  /** The handle of an owned sandbox. */
  readonly toHandle: (info: Info, context: Context) => Handle;
}

/** The lookups of an adapter, each taking its context first: the port's two, and launch reclaim's search. */
export interface OwnedLookups<Context, Handle> {
  /** `getById` ({@link getOwned}), within `timeouts.lookupMs` unless the call says otherwise. */
  getById(context: Context, sandboxId: string, op?: OpOptions): Promise<Handle | undefined>;
  /** `findByLabels` ({@link findOwned}), within `timeouts.lookupMs` unless the call says otherwise. */
  findByLabels(context: Context, labels: Labels, op?: OpOptions): Promise<Handle[]>;
  /** Ids of our sandboxes carrying `launchKey` ({@link findIdsByLaunchKey}), for the cleanup of an abandoned launch. */
  findByLaunchKey(context: Context, launchKey: string, budget: CallBudget): Promise<string[]>;
}

/**
 * An adapter's `lookup.ts` in one call: {@link getOwned}, {@link findOwned}
 * and {@link findIdsByLaunchKey} over its vendor listing, with the context's
 * `timeouts.lookupMs` as the deadline. What differs between providers is only
 * the listing, the id check and the handle.
 */
export function ownedLookups<Context extends AdapterContext<LookupOptions, unknown, Info, unknown>, Info, Handle>(
  settings: OwnedLookupSettings<Context, Info, Handle>,
): OwnedLookups<Context, Handle> {
  return {
    getById: (context, sandboxId, op) =>
      getOwned(context, sandboxId, op, {
        timeoutMs: context.options.timeouts.lookupMs,
        validId: (id) => settings.validId(id, context),
        toHandle: (info) => settings.toHandle(info, context),
      }),
    findByLabels: (context, labels, op) =>
      findOwned(context, labels, op, {
        ...settings.listing(context),
        timeoutMs: context.options.timeouts.lookupMs,
        toHandle: (info) => settings.toHandle(info, context),
      }),
    findByLaunchKey: (context, launchKey, budget) =>
      findIdsByLaunchKey(context, settings.listing(context), launchKey, budget),
  };
}
