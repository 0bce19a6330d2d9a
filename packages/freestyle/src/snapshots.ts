import {
  type Labels,
  type OpOptions,
  SandportError,
  type SnapshotOptions,
  type SnapshotRef,
  validateLabelQuery,
  validateSnapshotId,
  validateSnapshotOptions,
} from "@sandport/core";
import { type CallBudget, errorName, listPages, matchesLabels } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { FreestyleSnapshotData } from "./internal/sdk-types.js";
import { ownedSnapshotLabels, snapshotMarks } from "./snapshot-marks.js";

/** How often the list is walked again when snapshots came or went while it was walked. */
const LIST_WALKS = 3;

/**
 * Takes a Freestyle snapshot of the VM (`POST /v5/vms/{id}/snapshot`): its
 * memory and disk, so `contents` is `filesystem+memory`; the VM keeps
 * running. Marked as ours by its slug and display name (`snapshot-marks.ts`).
 * Options are checked before any request; the VM is proven ours first.
 */
export async function snapshot(
  context: FreestyleContext,
  handle: unknown,
  options: SnapshotOptions | undefined,
): Promise<SnapshotRef> {
  const { op, labels } = validateSnapshotOptions(options, PROVIDER);
  const { owner, namePrefix, timeouts } = context.options;
  return context.onOwned(handle, op, "snapshot", timeouts.launchMs, async (vmId, call) => {
    const vm = await context.vm(vmId, call);
    const created = await vm.snapshot(snapshotMarks(namePrefix, owner, labels));
    return toRef(created.snapshot, labels, vmId, created.snapshotId);
  });
}

/** Every snapshot of ours carrying all the labels, read from Freestyle's list (every page). */
export async function listSnapshots(context: FreestyleContext, labels: Labels, op?: OpOptions): Promise<SnapshotRef[]> {
  const query = validateLabelQuery(labels, PROVIDER);
  const operation = "listSnapshots";
  return context.run(op, { operation }, context.options.timeouts.lookupMs, async (call) => {
    const found: SnapshotRef[] = [];
    for (const data of await everySnapshot(context, operation, call)) {
      const owned = ownedSnapshotLabels(data, context.options.namePrefix, context.options.owner);
      if (owned !== undefined && matchesLabels(owned, query)) found.push(toRef(data, owned));
    }
    return found;
  });
}

/**
 * Deletes a snapshot of ours (`DELETE /v5/snapshots/{id}`) and resolves once
 * Freestyle answers that it is gone; an absent one resolves, a foreign one is
 * `FOREIGN_SANDBOX`, untouched. VMs booted from it are untouched.
 */
export async function deleteSnapshot(
  context: FreestyleContext,
  snapshotRef: SnapshotRef | string,
  op?: OpOptions,
): Promise<void> {
  const id = validateSnapshotId(snapshotRef, "snapshot", PROVIDER);
  return context.run(op, { operation: "deleteSnapshot" }, context.options.timeouts.destroyMs, async (call) => {
    const client = await context.client(call);
    const data = await snapshotById(context, id, call);
    if (data === undefined) return;
    if (ownedSnapshotLabels(data, context.options.namePrefix, context.options.owner) === undefined) {
      throw new SandportError({
        code: "FOREIGN_SANDBOX",
        provider: PROVIDER,
        retryable: false,
        message: `freestyle snapshot ${id} is not this runtime's (its slug or display name lacks our marks); refusing to delete it`,
        details: { snapshotId: id, operation: "deleteSnapshot" },
      });
    }
    await client.vms.snapshots.delete(id).catch((error: unknown) => {
      if (!isSnapshotNotFound(error)) throw error;
    });
  });
}

/**
 * Proves snapshot `id` ours before a launch boots from it: `NOT_FOUND` when
 * Freestyle has no snapshot with this id, or it is not ours (a launch never
 * boots a foreign one), before anything is created.
 */
export async function assertRestorable(context: FreestyleContext, id: string, budget: CallBudget): Promise<void> {
  const data = await snapshotById(context, id, budget).catch((error: unknown) => {
    throw context.mapError(error, { operation: "launch" });
  });
  if (data !== undefined && ownedSnapshotLabels(data, context.options.namePrefix, context.options.owner)) return;
  throw snapshotNotFound(id);
}

/** `NOT_FOUND` for a snapshot a launch cannot boot from. */
export function snapshotNotFound(id: string, cause?: unknown): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: PROVIDER,
    retryable: false,
    message: `freestyle snapshot ${id} does not exist (or is not this runtime owner's); nothing was launched`,
    details: { snapshotId: id, operation: "launch" },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** True when the SDK reports that the snapshot does not exist. */
export function isSnapshotNotFound(error: unknown): boolean {
  if (errorName(error) !== "FreestyleApiError") return false;
  const { code, status } = error as { code?: unknown; status?: unknown };
  return code === "SNAPSHOT_NOT_FOUND" || status === 404;
}

/** One `GET /v5/snapshots/{id}`; `undefined` when absent. The API finds slugs there too: a record found by slug is not this id's. */
async function snapshotById(
  context: FreestyleContext,
  id: string,
  budget: CallBudget,
): Promise<FreestyleSnapshotData | undefined> {
  try {
    const data = await (await context.client(budget)).vms.snapshots.get(id);
    return data.id === id ? data : undefined;
  } catch (error) {
    if (isSnapshotNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Freestyle's snapshot list, every page. It is paged by offset, so a snapshot
 * deleted while it is walked shifts the rest: when the total changes between
 * pages the walk is repeated, and what every walk found is kept.
 */
async function everySnapshot(
  context: FreestyleContext,
  operation: string,
  budget: CallBudget,
): Promise<FreestyleSnapshotData[]> {
  const client = await context.client(budget);
  const found = new Map<string, FreestyleSnapshotData>();
  for (let walk = 1; walk <= LIST_WALKS; walk++) {
    const totals = new Set<number>();
    let offset = 0;
    let done = false;
    const nextPage = async () => {
      if (done) return undefined;
      const page = await client.vms.snapshots.list({ limit: context.options.listPageSize, offset });
      totals.add(page.totalCount);
      offset += page.snapshots.length;
      done = page.snapshots.length === 0 || offset >= page.totalCount;
      return page.snapshots;
    };
    for (const data of await listPages(context, operation, budget, nextPage)) found.set(data.id, data);
    if (totals.size <= 1) break;
  }
  return [...found.values()];
}

function toRef(data: FreestyleSnapshotData, labels: Labels, sourceId?: string, id?: string): SnapshotRef {
  const created = new Date(data.createdAt);
  return Object.freeze({
    id: id ?? data.id,
    provider: PROVIDER,
    createdAt: Number.isNaN(created.getTime()) ? data.createdAt : created.toISOString(),
    contents: "filesystem+memory",
    labels: Object.freeze({ ...labels }),
    sourceId: sourceId ?? data.sourceVmId ?? "",
  });
}
