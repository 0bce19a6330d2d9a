import { decodeSnapshotName, encodeSnapshotName, type SnapshotRecord } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

export type { SnapshotRecord };

/**
 * Longest name sent. Snapshot ids are `<team>/<name>:default` and the port
 * takes ids of at most 256 characters, so this leaves 57 for E2B's team slug;
 * a longer id that comes back anyway is deleted and refused (see `snapshots.ts`).
 */
export const MAX_SNAPSHOT_NAME = 190;

/**
 * The snapshot name (an E2B alias) that carries `record`. E2B's
 * `SnapshotInfo` holds only an id and names (no metadata, no creation time,
 * no source), so all of it travels in the name (the kit's
 * `encodeSnapshotName`, whose base32 is within E2B's alias alphabet and
 * unchanged by its lower-casing). `UNSUPPORTED` when it would be too long.
 */
export function snapshotName(record: SnapshotRecord): string {
  return encodeSnapshotName(record, {
    provider: PROVIDER,
    maxLength: MAX_SNAPSHOT_NAME,
    reason: "E2B keeps no metadata on a snapshot",
  });
}

/**
 * The record in a snapshot id as E2B answers it (`<team>/<name>:<tag>`, or the
 * name alone) when `owner` gave it; `undefined` for any other snapshot.
 */
export function readSnapshotId(snapshotId: string, owner: string): SnapshotRecord | undefined {
  const withoutTag = snapshotId.split(":", 1)[0] ?? "";
  return decodeSnapshotName(withoutTag.slice(withoutTag.lastIndexOf("/") + 1), owner);
}
