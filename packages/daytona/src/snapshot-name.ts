import { decodeSnapshotName, encodeSnapshotName, type SnapshotRecord } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

export type { SnapshotRecord };

/**
 * Longest name sent: the name is the ref's id, which the port bounds at 256
 * characters. Daytona documents no limit of its own for a snapshot name (a
 * guess that it takes this many).
 */
export const MAX_SNAPSHOT_NAME = 256;

/**
 * The snapshot name (a Daytona snapshot name) that carries `record`. A
 * Daytona snapshot has a name, a creation time and a source sandbox but no
 * labels, so the owner and labels travel in its name (the kit's
 * `encodeSnapshotName`), with the time and source for the ref's sake.
 * `UNSUPPORTED` when it would be too long.
 */
export function snapshotName(record: SnapshotRecord): string {
  return encodeSnapshotName(record, {
    provider: PROVIDER,
    maxLength: MAX_SNAPSHOT_NAME,
    reason: "Daytona keeps no labels on a snapshot",
  });
}

/**
 * The record in a snapshot name when `owner` gave it; `undefined` for any
 * other snapshot (a tag or namespace part, if any, is ignored).
 */
export function readSnapshotId(snapshotId: string, owner: string): SnapshotRecord | undefined {
  const withoutTag = snapshotId.split(":", 1)[0] ?? "";
  return decodeSnapshotName(withoutTag.slice(withoutTag.lastIndexOf("/") + 1), owner);
}
