import { keyList } from "../validation/known-keys.js";
import type { Labels } from "./labels.js";
import type { OpOptions } from "./op-options.js";

/**
 * What a snapshot holds: the sandbox's files (`filesystem`), or its files and
 * the memory of what ran in it (`filesystem+memory`: a restored sandbox
 * resumes its processes).
 */
export type SnapshotContents = "filesystem" | "filesystem+memory";

/**
 * A saved state of a sandbox, taken by `SandboxRuntime.snapshot`. A new
 * sandbox starts from it with `launch({ from })`; the sandbox it came from is
 * untouched by both. Snapshots are owned like sandboxes: a runtime lists and
 * deletes only its own.
 */
export interface SnapshotRef {
  /** The provider's id of the snapshot. */
  readonly id: string;
  /** The `provider` of the runtime that took it; another provider's runtime refuses it. */
  readonly provider: string;
  /** When it was taken, ISO 8601. */
  readonly createdAt: string;
  /** What it holds; see {@link SnapshotContents}. */
  readonly contents: SnapshotContents;
  /** The labels given to `snapshot`, without Sandport's reserved ones. */
  readonly labels: Labels;
  /** The id of the sandbox it was taken from. */
  readonly sourceId: string;
}

/** Options of `SandboxRuntime.snapshot`: the per-call options plus labels to find the snapshot by. */
export interface SnapshotOptions extends OpOptions {
  /** Labels for `listSnapshots`; reserved `sandport.*` keys are refused. */
  readonly labels?: Labels;
}

/** Every key a {@link SnapshotOptions} may have; any other is refused with `INVALID_REQUEST`. */
export const SNAPSHOT_OPTION_KEYS = keyList<SnapshotOptions>({ labels: true, signal: true, timeoutMs: true });
