import type { Labels, SnapshotRef } from "@sandport/core";
import { LOCAL_PROVIDER } from "../options.js";

/** Format tag of a snapshot's metadata file. */
export const SNAPSHOT_RECORD_FORMAT = "sandport-local-snapshot-v1";

/** What `snapshot.json` holds. */
export interface SnapshotRecord {
  readonly format: typeof SNAPSHOT_RECORD_FORMAT;
  readonly id: string;
  /** The runtime's `owner`; a record with another owner is foreign. */
  readonly owner: string;
  readonly createdAt: string;
  /** Caller labels, without reserved keys. */
  readonly labels: Labels;
  /** The sandbox the workspace was copied from. */
  readonly sourceId: string;
}

/** The port's view of a record: a snapshot of the workspace's files. */
export function toSnapshotRef(record: SnapshotRecord): SnapshotRef {
  return Object.freeze({
    id: record.id,
    provider: LOCAL_PROVIDER,
    createdAt: record.createdAt,
    contents: "filesystem",
    labels: Object.freeze({ ...record.labels }),
    sourceId: record.sourceId,
  });
}

/** Parses a metadata file; `undefined` for anything that is not a well-formed record (treated as foreign). */
export function parseSnapshotRecord(text: string): SnapshotRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const labels = record.labels;
  if (
    record.format !== SNAPSHOT_RECORD_FORMAT ||
    typeof record.id !== "string" ||
    typeof record.owner !== "string" ||
    typeof record.createdAt !== "string" ||
    typeof record.sourceId !== "string" ||
    typeof labels !== "object" ||
    labels === null ||
    Array.isArray(labels) ||
    !Object.values(labels).every((item) => typeof item === "string")
  ) {
    return undefined;
  }
  return record as unknown as SnapshotRecord;
}
