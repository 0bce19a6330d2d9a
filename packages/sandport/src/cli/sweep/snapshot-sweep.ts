import { type Labels, type SandboxRuntime, SandportError, type SnapshotRef, unsupported } from "@sandport/core";
import { judgeAge, type SweepAction } from "./sweep-plan.js";

/** One owned snapshot and what the sweep does with it. */
export interface SnapshotSweepItem {
  readonly snapshot: SnapshotRef;
  /** Milliseconds since it was taken; `undefined` when its `createdAt` does not parse. */
  readonly ageMs: number | undefined;
  readonly action: SweepAction;
}

/** What deleting one snapshot came to. */
export interface SnapshotDeleteOutcome {
  /** `deleted`: gone and no longer listed; `unverified`: delete resolved but the listing still has it; `failed`: delete rejected. */
  readonly outcome: "deleted" | "unverified" | "failed";
  /** Why, for `unverified` and `failed`. */
  readonly reason?: string;
}

/** The snapshot members a sweep needs; a runtime without them is refused before anything is listed. */
type SnapshotRuntime = Required<Pick<SandboxRuntime, "listSnapshots" | "deleteSnapshot">>;

/**
 * Refuses (`UNSUPPORTED`) a runtime that cannot list and delete its
 * snapshots, before the sweep touches anything.
 */
export function requireSnapshots(runtime: SandboxRuntime): SnapshotRuntime {
  if (typeof runtime.listSnapshots === "function" && typeof runtime.deleteSnapshot === "function") {
    return runtime as SandboxRuntime & SnapshotRuntime;
  }
  throw unsupported(runtime.provider, "sweep --snapshots", "the runtime cannot list and delete its snapshots");
}

/**
 * The owner's snapshots carrying `labels` (the runtime never lists another
 * owner's), each marked for deletion when at least `olderThanMs` old.
 */
export async function planSnapshotSweep(
  runtime: SnapshotRuntime,
  labels: Labels,
  olderThanMs: number,
  now: number,
  signal: AbortSignal,
): Promise<SnapshotSweepItem[]> {
  const snapshots = await runtime.listSnapshots(labels, { signal });
  return snapshots.map((snapshot) => ({ snapshot, ...judgeAge(snapshot.createdAt, olderThanMs, now) }));
}

/** Deletes one snapshot, then checks that the owner's listing no longer has it. Never throws. */
export async function deleteSnapshotVerified(
  runtime: SnapshotRuntime,
  snapshot: SnapshotRef,
  signal: AbortSignal,
): Promise<SnapshotDeleteOutcome> {
  try {
    await runtime.deleteSnapshot(snapshot, { signal });
  } catch (error) {
    return { outcome: "failed", reason: reasonOf(error) };
  }
  try {
    const listed = await runtime.listSnapshots({}, { signal });
    if (listed.some((other) => other.id === snapshot.id)) {
      return { outcome: "unverified", reason: "the owner's listing still has it" };
    }
  } catch (error) {
    return { outcome: "unverified", reason: `could not list snapshots: ${reasonOf(error)}` };
  }
  return { outcome: "deleted" };
}

function reasonOf(error: unknown): string {
  if (SandportError.isInstance(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
