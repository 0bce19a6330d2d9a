import {
  resolveCapabilities,
  type SandboxHandle,
  type SandboxRuntime,
  type SnapshotRef,
  validateLabels,
} from "@sandport/core";
import type { MastraWorkspaceModule } from "./internal/sdk-types.js";

/** The label a checkpoint's snapshot carries its name in. */
export const CHECKPOINT_LABEL = "mastra/checkpoint";

/** The checkpoint names of a Mastra sandbox: the one it persists to, and the one it may seed from first. */
export interface CheckpointNames {
  /** Seeded from on a fresh launch, persisted to by `snapshot()`. */
  readonly checkpointName?: string;
  /** Seeded from on a fresh launch when `checkpointName` has no checkpoint yet; never written. */
  readonly seedCheckpointName?: string;
}

/** The port's snapshot members, bound to the runtime. */
export interface Checkpoints<H extends SandboxHandle> {
  /** The runtime's `snapshot`. */
  readonly snapshot: NonNullable<SandboxRuntime<H>["snapshot"]>;
  /** The runtime's `listSnapshots`. */
  readonly listSnapshots: NonNullable<SandboxRuntime<H>["listSnapshots"]>;
  /** The runtime's `deleteSnapshot`. */
  readonly deleteSnapshot: NonNullable<SandboxRuntime<H>["deleteSnapshot"]>;
}

/**
 * The runtime's snapshots, or `undefined` where it has none. Checkpoint names
 * on a runtime without them are Mastra's `SandboxUnsupportedFeatureError`
 * (feature `checkpoints`), refused before anything is launched: `snapshot()`
 * must not quietly persist nothing. A name is checked as a label value.
 */
export function checkpointsOf<H extends SandboxHandle>(
  mastra: MastraWorkspaceModule,
  runtime: SandboxRuntime<H>,
  names: CheckpointNames,
): Checkpoints<H> | undefined {
  for (const name of [names.checkpointName, names.seedCheckpointName]) {
    if (name !== undefined)
      validateLabels({ [CHECKPOINT_LABEL]: name }, { field: "checkpoint name", provider: runtime.provider });
  }
  const { snapshot, listSnapshots, deleteSnapshot } = runtime;
  if (resolveCapabilities(runtime).snapshots !== true || !snapshot || !listSnapshots || !deleteSnapshot) {
    if (names.checkpointName === undefined && names.seedCheckpointName === undefined) return undefined;
    throw new mastra.SandboxUnsupportedFeatureError(
      `the Sandport runtime "${runtime.provider}" has no snapshots to keep checkpoints in`,
      { feature: "checkpoints" },
    );
  }
  return {
    snapshot: snapshot.bind(runtime),
    listSnapshots: listSnapshots.bind(runtime),
    deleteSnapshot: deleteSnapshot.bind(runtime),
  };
}

/** The newest snapshot of the named checkpoint, or `undefined` when it has none. */
export async function newestCheckpoint<H extends SandboxHandle>(
  checkpoints: Checkpoints<H>,
  name: string,
): Promise<SnapshotRef | undefined> {
  const found = await checkpoints.listSnapshots({ [CHECKPOINT_LABEL]: name });
  return found.reduce<SnapshotRef | undefined>(
    (newest, snapshot) => (newest === undefined || snapshot.createdAt > newest.createdAt ? snapshot : newest),
    undefined,
  );
}

/** What a fresh launch seeds from: `checkpointName`'s newest snapshot, else `seedCheckpointName`'s, else nothing. */
export async function seedCheckpoint<H extends SandboxHandle>(
  checkpoints: Checkpoints<H> | undefined,
  names: CheckpointNames,
): Promise<SnapshotRef | undefined> {
  if (checkpoints === undefined) return undefined;
  for (const name of [names.checkpointName, names.seedCheckpointName]) {
    const found = name === undefined ? undefined : await newestCheckpoint(checkpoints, name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * `snapshot()`: persists the sandbox as `name`'s checkpoint, a new snapshot
 * replacing the older ones once it is taken (as Mastra's LocalSandbox swaps
 * its checkpoint directory into place: a concurrent launch sees the old
 * checkpoint or the new one, never none).
 */
export async function persistCheckpoint<H extends SandboxHandle>(
  checkpoints: Checkpoints<H>,
  handle: H,
  name: string,
): Promise<void> {
  const older = await checkpoints.listSnapshots({ [CHECKPOINT_LABEL]: name });
  const taken = await checkpoints.snapshot(handle, { labels: { [CHECKPOINT_LABEL]: name } });
  for (const snapshot of older) if (snapshot.id !== taken.id) await checkpoints.deleteSnapshot(snapshot);
}
