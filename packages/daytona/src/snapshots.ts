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
import { whenAbsent } from "@sandport/core/adapter";
import { type DaytonaContext, seconds } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { readSnapshotId, type SnapshotRecord, snapshotName } from "./snapshot-name.js";

/**
 * Takes a Daytona snapshot of an owned started sandbox (`POST
 * /api/sandbox/{id}/snapshot` through the SDK's `createSnapshot`, which waits
 * until the sandbox leaves `snapshotting` for its previous state): the sandbox
 * keeps running. The snapshot's name carries the owner, source, time and
 * labels (`snapshot-name.ts`); labels too long for a name are refused before
 * any request.
 */
export async function snapshot(context: DaytonaContext, handle: unknown, options?: unknown): Promise<SnapshotRef> {
  const { op, labels } = validateSnapshotOptions(options, PROVIDER);
  return context.onHandle(handle, op, "snapshot", context.options.timeouts.launchMs, async (sandboxId, call) => {
    const record: SnapshotRecord = {
      owner: context.options.owner,
      sourceId: sandboxId,
      createdAt: new Date().toISOString(),
      labels,
    };
    const name = snapshotName(record);
    const sandbox = await context.instance(sandboxId, "snapshot", call);
    await takeSnapshot(sandbox)(name, seconds(call.remainingMs()));
    return toRef(name, record);
  });
}

/** Every snapshot of ours carrying all `labels`, across every page of the organization's snapshots. */
export async function listSnapshots(context: DaytonaContext, labels: Labels, op?: OpOptions): Promise<SnapshotRef[]> {
  const query = validateLabelQuery(labels, PROVIDER);
  return context.run(op, { operation: "listSnapshots" }, context.options.timeouts.lookupMs, async (call) => {
    const client = await context.client();
    const found: SnapshotRef[] = [];
    for (let page = 1; ; page += 1) {
      call.signal?.throwIfAborted();
      const listed = await client.snapshot.list(page, context.options.listPageSize);
      for (const entry of listed.items) {
        const record = readSnapshotId(entry.name, context.options.owner);
        if (record && Object.entries(query).every(([key, value]) => record.labels[key] === value)) {
          found.push(toRef(entry.name, record));
        }
      }
      if (page >= listed.totalPages || listed.items.length === 0) return found;
    }
  });
}

/**
 * Deletes a snapshot of ours (its name looked up, then deleted by id); absent
 * resolves. One whose name is not ours is `FOREIGN_SANDBOX` without a request.
 */
export async function deleteSnapshot(context: DaytonaContext, snapshotRef: unknown, op?: OpOptions): Promise<void> {
  const name = validateSnapshotId(snapshotRef, "snapshot", PROVIDER);
  if (readSnapshotId(name, context.options.owner) === undefined) throw foreignSnapshot(name);
  return context.run(op, { operation: "deleteSnapshot" }, context.options.timeouts.destroyMs, async () => {
    const client = await context.client();
    const found = await client.snapshot.get(name).catch(whenAbsent(isNotFound, undefined));
    if (found === undefined) return;
    await client.snapshot.delete(found).catch(whenAbsent(isNotFound, undefined));
  });
}

/** The snapshot a launch starts from: ours by its name, else `NOT_FOUND` before any request. */
export function ownedSnapshotName(owner: string, name: string): string {
  if (readSnapshotId(name, owner) !== undefined) return name;
  throw snapshotNotFound(name);
}

/**
 * Checks that snapshot `name` exists (one `GET /api/snapshots/{name}`), so a
 * launch from a deleted one is `NOT_FOUND` before the create, never a fresh sandbox.
 */
export async function assertSnapshotExists(context: DaytonaContext, name: string): Promise<void> {
  const client = await context.client();
  const found = await client.snapshot.get(name).catch(whenAbsent(isNotFound, undefined));
  if (found === undefined) throw snapshotNotFound(name);
}

/** The SDK's snapshot call on a sandbox: `createSnapshot`, or its experimental name in 0.180. */
function takeSnapshot(sandbox: DaytonaSandbox): (name: string, timeout: number) => Promise<void> {
  const take = sandbox.createSnapshot ?? sandbox._experimental_createSnapshot;
  if (take === undefined) {
    throw unsupported(PROVIDER, "snapshots", "the installed Daytona SDK has no Sandbox.createSnapshot");
  }
  return (name, timeout) => take.call(sandbox, name, timeout);
}

/** A Daytona snapshot of a sandbox holds its filesystem (the SDK: "captures the Sandbox's filesystem"). */
function toRef(name: string, record: SnapshotRecord): SnapshotRef {
  return {
    id: name,
    provider: PROVIDER,
    createdAt: record.createdAt,
    contents: "filesystem",
    labels: record.labels,
    sourceId: record.sourceId,
  };
}

function snapshotNotFound(name: string): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: PROVIDER,
    retryable: false,
    message: `snapshot ${name} does not exist (or is not this runtime owner's)`,
    details: { snapshotId: name, operation: "launch" },
  });
}

function foreignSnapshot(name: string): SandportError {
  return new SandportError({
    code: "FOREIGN_SANDBOX",
    provider: PROVIDER,
    retryable: false,
    message: `daytona snapshot ${name} is not this runtime's (its name carries another owner, or none); refusing to delete it`,
    details: { snapshotId: name, operation: "deleteSnapshot" },
  });
}
