import { createHash, randomBytes } from "node:crypto";
import type { Labels } from "@sandport/core";
import type { FreestyleSnapshotData } from "./internal/sdk-types.js";

/** Format tag of the display name this adapter gives a snapshot. */
const RECORD_FORMAT = "sandport-snapshot-v1";

/** What a snapshot of ours says about itself, in its display name. */
interface SnapshotRecord {
  readonly format: typeof RECORD_FORMAT;
  readonly owner: string;
  readonly labels: Labels;
}

/**
 * How a snapshot is marked as ours. Freestyle snapshots carry no metadata,
 * only a `slug` and a `displayName`, so both are used: the slug is
 * `<namePrefix>-snap-<owner digest>-<random>` (under the runtime's prefix, as
 * a VM's), and the display name is a JSON record of the owner and the
 * caller's labels. A snapshot is ours only when both say so; anything else
 * (another prefix or owner, a display name someone changed, public catalog
 * snapshots) is foreign: never listed, deleted or launched from.
 */
export function snapshotMarks(
  namePrefix: string,
  owner: string,
  labels: Labels,
): { slug: string; displayName: string } {
  const record: SnapshotRecord = { format: RECORD_FORMAT, owner, labels };
  return {
    slug: `${slugPrefix(namePrefix, owner)}${randomBytes(6).toString("hex")}`,
    displayName: JSON.stringify(record),
  };
}

/** The caller's labels of a snapshot of ours; `undefined` when it is not ours. */
export function ownedSnapshotLabels(
  snapshot: FreestyleSnapshotData,
  namePrefix: string,
  owner: string,
): Labels | undefined {
  if (typeof snapshot.slug !== "string" || !snapshot.slug.startsWith(slugPrefix(namePrefix, owner))) return undefined;
  if (typeof snapshot.displayName !== "string") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(snapshot.displayName);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Partial<SnapshotRecord>;
  const labels = record.labels as unknown;
  if (
    record.format !== RECORD_FORMAT ||
    record.owner !== owner ||
    typeof labels !== "object" ||
    labels === null ||
    Array.isArray(labels) ||
    !Object.values(labels).every((item) => typeof item === "string")
  ) {
    return undefined;
  }
  return Object.freeze({ ...(labels as Labels) });
}

/** `<namePrefix>-snap-<12 hex of the owner's SHA-256>-`: at most 30 + 24 characters, room for 12 random ones. */
function slugPrefix(namePrefix: string, owner: string): string {
  return `${namePrefix}-snap-${createHash("sha256").update(owner).digest("hex").slice(0, 12)}-`;
}
