import { invalidRequest } from "../errors/factories.js";
import type { SnapshotRef } from "../port/snapshot.js";

/** Printable, no whitespace or control characters, at most 256: what any provider's snapshot id looks like. */
const SNAPSHOT_ID = /^[\u0021-\u007e]{1,256}$/;

/**
 * The snapshot id a `LaunchSpec.from` or `deleteSnapshot` argument names: a
 * {@link SnapshotRef} (whose `provider` must be this runtime's, when
 * `provider` is given) or an id string. `INVALID_REQUEST` for anything else.
 */
export function validateSnapshotId(snapshot: unknown, field: string, provider?: string): string {
  let id: unknown = snapshot;
  if (typeof snapshot === "object" && snapshot !== null && !Array.isArray(snapshot)) {
    const ref = snapshot as Partial<SnapshotRef>;
    if (provider !== undefined && ref.provider !== provider) {
      throw invalidRequest(
        `${field} is a snapshot of provider ${JSON.stringify(ref.provider)}, not ${JSON.stringify(provider)}`,
        { field },
        provider,
      );
    }
    id = ref.id;
  }
  if (typeof id !== "string" || !SNAPSHOT_ID.test(id)) {
    throw invalidRequest(
      `${field} must be a snapshot (as snapshot() returns it) or its id: 1-256 printable characters without spaces`,
      { field },
      provider,
    );
  }
  return id;
}
