import { LAUNCH_KEY_LABEL, type Labels, type OpOptions, OWNER_LABEL, validateLabelQuery } from "@sandport/core";
import { collectPages, matchesLabels } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { isNotFound, mapFreestyleError } from "./errors.js";
import { type FreestyleHandle, handleFromVm, PROVIDER, validVmId } from "./handle.js";
import type { FreestyleVmData } from "./internal/sdk-types.js";
import { isOurs, metadataFilter, slugFor } from "./ownership.js";
import type { CallTiming } from "./transport.js";

/** How often the list is walked again when VMs came or went while it was walked. */
const LIST_WALKS = 3;

/**
 * Rebuilds a handle from a VM id. Resolves `undefined` when no VM has this id;
 * rejects `FOREIGN_SANDBOX` when it lacks our marks. One `GET /v5/vms/{id}`.
 */
export function getById(context: FreestyleContext, vmId: string, op?: OpOptions): Promise<FreestyleHandle | undefined> {
  return context.run(op, { operation: "getById" }, context.options.timeouts.lookupMs, async (call) => {
    const data = await context.ownedVm(validVmId(vmId), "getById", call);
    return data ? handleFromVm(data) : undefined;
  });
}

/**
 * Every VM of ours carrying all the given labels (reserved ones such as
 * `sandport.launch-key` may be named; `{}` is every VM of ours), in any state.
 * Freestyle filters by metadata and this runtime checks every result again;
 * VMs without our marks are never returned, nor those whose abandoned launch
 * is being cleaned up.
 */
export function findByLabels(context: FreestyleContext, labels: Labels, op?: OpOptions): Promise<FreestyleHandle[]> {
  return context.run(op, { operation: "findByLabels" }, context.options.timeouts.lookupMs, async (call) => {
    const query = validateLabelQuery(labels, PROVIDER);
    if (query[OWNER_LABEL] !== undefined && query[OWNER_LABEL] !== context.options.owner) return [];
    const found = await listOwned(context, query, "findByLabels", call);
    const condemned = (vm: FreestyleVmData) => context.condemned.has(vm.metadata[LAUNCH_KEY_LABEL] as string);
    return found.filter((vm) => !condemned(vm)).map(handleFromVm);
  });
}

/**
 * Ids of our VMs carrying `launchKey`, for the cleanup of an abandoned launch:
 * one `GET` of the slug the launch key gives.
 */
export async function findByLaunchKey(
  context: FreestyleContext,
  launchKey: string,
  timing: CallTiming,
): Promise<string[]> {
  const { owner, namePrefix } = context.options;
  const client = await context.client(timing);
  let data: FreestyleVmData;
  try {
    data = await client.vms.get(slugFor(namePrefix, owner, launchKey));
  } catch (error) {
    if (isNotFound(error)) return [];
    throw mapFreestyleError(error, { operation: "background cleanup" });
  }
  const ours = isOurs(data, owner, namePrefix) && data.metadata[LAUNCH_KEY_LABEL] === launchKey;
  return ours ? [data.id] : [];
}

/**
 * Every VM of ours matching `query`, across every page (each page retried on
 * retryable errors); each one is remembered as ours. The list is paged by
 * offset, so a VM deleted while it is walked shifts the rest: when the total
 * changes between pages the walk is repeated, and what every walk found is
 * kept, so no VM that existed throughout is missed.
 */
async function listOwned(
  context: FreestyleContext,
  query: Labels,
  operation: string,
  timing: CallTiming,
): Promise<FreestyleVmData[]> {
  const { owner, namePrefix, listPageSize } = context.options;
  const wanted = { ...query, [OWNER_LABEL]: owner };
  const filter = metadataFilter(wanted);
  if (filter === undefined) return [];
  const client = await context.client(timing);
  const found = new Map<string, FreestyleVmData>();
  for (let walk = 1; walk <= LIST_WALKS; walk++) {
    const totals = new Set<number>();
    let offset = 0;
    let done = false;
    const vms = await collectPages(
      async () => {
        if (done) return undefined;
        const page = await client.vms.list({ metadata: filter, limit: listPageSize, offset });
        totals.add(page.totalCount);
        offset += page.vms.length;
        done = page.vms.length === 0 || offset >= page.totalCount;
        return page.vms;
      },
      {
        mapError: (error) => mapFreestyleError(error, { operation }),
        ...(timing.signal ? { signal: timing.signal } : {}),
      },
    );
    for (const vm of vms) found.set(vm.id, vm);
    if (totals.size <= 1) break;
  }
  const ours = [...found.values()].filter((vm) => isOurs(vm, owner, namePrefix) && matchesLabels(vm.metadata, wanted));
  for (const vm of ours) context.known.markOwned(vm.id);
  return ours;
}
