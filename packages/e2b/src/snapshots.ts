import {
  type Labels,
  type OpOptions,
  SandportError,
  type SnapshotRef,
  unsupported,
  validateLabelQuery,
  validateSnapshotId,
  validateSnapshotOptions,
} from "@sandport/core";
import { absentAs, listPages } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { E2BSandboxClass } from "./internal/sdk-types.js";
import { readSnapshotId, type SnapshotRecord, snapshotName } from "./snapshot-name.js";

/** Longest snapshot id the port carries (`validateSnapshotId`). */
const MAX_SNAPSHOT_ID = 256;

/**
 * Takes an E2B snapshot of an owned running sandbox (`POST
 * /sandboxes/{id}/snapshots`): E2B pauses it briefly, saves its filesystem and
 * memory, and resumes it, so the sandbox keeps running. The snapshot's name
 * carries the owner, source, time and labels (`snapshot-name.ts`); labels
 * too long for a name are refused before any request.
 */
export async function snapshot(context: E2BContext, handle: unknown, options?: unknown): Promise<SnapshotRef> {
  const { op, labels } = validateSnapshotOptions(options, PROVIDER);
  return context.onHandle(handle, op, "snapshot", context.options.timeouts.launchMs, async (sandboxId, call) => {
    const record: SnapshotRecord = {
      owner: context.options.owner,
      sourceId: sandboxId,
      createdAt: new Date().toISOString(),
      labels,
    };
    const name = snapshotName(record);
    await context.assertOwned(sandboxId, "snapshot", call);
    const create = snapshotCalls(await context.sdk()).createSnapshot;
    const info = await create(sandboxId, { ...context.fields(call), name }).catch(
      absentAs(PROVIDER, isNotFound, sandboxId, "snapshot"),
    );
    if (info.snapshotId.length > MAX_SNAPSHOT_ID) {
      // The team's slug made the id longer than the port carries: nobody could name it again.
      await snapshotCalls(await context.sdk()).deleteSnapshot(info.snapshotId, context.fields(call));
      throw unsupported(
        PROVIDER,
        "these snapshot labels",
        `the snapshot id E2B gave (${info.snapshotId.length} characters, with the team's slug) exceeds ` +
          `the port's ${MAX_SNAPSHOT_ID}; it was deleted; use fewer or shorter labels`,
      );
    }
    return toRef(info.snapshotId, record);
  });
}

/** Every snapshot of ours carrying all `labels` (`GET /snapshots`, every page), as E2B lists them. */
export async function listSnapshots(context: E2BContext, labels: Labels, op?: OpOptions): Promise<SnapshotRef[]> {
  const query = validateLabelQuery(labels, PROVIDER);
  return context.run(op, { operation: "listSnapshots" }, context.options.timeouts.lookupMs, async (call) => {
    const sdk = snapshotCalls(await context.sdk());
    const paginator = sdk.listSnapshots({
      ...context.fields({ remainingMs: call.remainingMs }),
      limit: context.options.listPageSize,
    });
    const nextPage = async () => (paginator.hasNext ? paginator.nextItems(context.fields(call)) : undefined);
    const found = await listPages(context, "listSnapshots", call, nextPage);
    return found.flatMap((info) => {
      const record = readSnapshotId(info.snapshotId, context.options.owner);
      if (record === undefined) return [];
      const matches = Object.entries(query).every(([key, value]) => record.labels[key] === value);
      return matches ? [toRef(info.snapshotId, record)] : [];
    });
  });
}

/**
 * Deletes a snapshot of ours (`DELETE /templates/{id}`); absent resolves. A
 * snapshot whose name is not one of ours is `FOREIGN_SANDBOX` without a request.
 */
export async function deleteSnapshot(context: E2BContext, snapshot: unknown, op?: OpOptions): Promise<void> {
  const id = validateSnapshotId(snapshot, "snapshot", PROVIDER);
  if (readSnapshotId(id, context.options.owner) === undefined) {
    throw foreignSnapshot(id, "deleteSnapshot");
  }
  return context.run(op, { operation: "deleteSnapshot" }, context.options.timeouts.destroyMs, async (call) => {
    const sdk = snapshotCalls(await context.sdk());
    await sdk.deleteSnapshot(id, context.fields(call));
  });
}

/**
 * The snapshot id a launch starts from, checked to be one of ours before
 * anything is sent: `NOT_FOUND` otherwise (a foreign snapshot is never read).
 */
export function ownedSnapshotId(context: E2BContext, id: string): string {
  if (readSnapshotId(id, context.options.owner) !== undefined) return id;
  throw new SandportError({
    code: "NOT_FOUND",
    provider: PROVIDER,
    retryable: false,
    message: `snapshot ${id} does not exist (or is not this runtime owner's)`,
    details: { snapshotId: id, operation: "launch" },
  });
}

/** The SDK's snapshot calls, or `UNSUPPORTED` for an `e2b` SDK too old to have them. */
function snapshotCalls(sdk: {
  readonly Sandbox: E2BSandboxClass;
}): Required<Pick<E2BSandboxClass, "createSnapshot" | "listSnapshots" | "deleteSnapshot">> {
  const { createSnapshot, listSnapshots, deleteSnapshot } = sdk.Sandbox;
  if (createSnapshot === undefined || listSnapshots === undefined || deleteSnapshot === undefined) {
    throw unsupported(PROVIDER, "snapshots", "the installed e2b SDK has no Sandbox.createSnapshot (2.51 has it)");
  }
  return {
    createSnapshot: createSnapshot.bind(sdk.Sandbox),
    listSnapshots: listSnapshots.bind(sdk.Sandbox),
    deleteSnapshot: deleteSnapshot.bind(sdk.Sandbox),
  };
}

/** E2B's full snapshot (its API default) holds the memory too. */
function toRef(id: string, record: SnapshotRecord): SnapshotRef {
  return {
    id,
    provider: PROVIDER,
    createdAt: record.createdAt,
    contents: "filesystem+memory",
    labels: record.labels,
    sourceId: record.sourceId,
  };
}

/** `FOREIGN_SANDBOX` for a snapshot whose name is not one this runtime's owner gives. */
function foreignSnapshot(id: string, operation: string): SandportError {
  return new SandportError({
    code: "FOREIGN_SANDBOX",
    provider: PROVIDER,
    retryable: false,
    message: `e2b snapshot ${id} is not this runtime's (its name carries another owner, or none); refusing to ${operation} it`,
    details: { snapshotId: id, operation },
  });
}
