/**
 * The snapshots of one emulator: each the record the API reports and the
 * backend runtime's own snapshot of the VM's files, which a VM created from
 * it is launched from (`LaunchSpec.from`).
 *
 * @module
 */

import type { SnapshotRef } from "@sandport/core";
import { randomToken } from "../harness/sandbox-registry.js";
import { ApiError } from "./api.js";

/** One stored snapshot. */
export interface StoredSnapshot {
  /** `sh-` and 20 letters and digits. */
  readonly id: string;
  slug: string | null;
  displayName: string | null;
  readonly sourceVmId: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  updatedAt: number;
  /** Epoch milliseconds of the last VM created from it; `null` while none has been. */
  lastUsedAt: number | null;
  /** The backend's snapshot of the VM's files, which restores them into a new backend sandbox. */
  readonly backend: SnapshotRef;
}

/** The snapshots, by id; a slug finds one too, as everywhere the API names a snapshot. */
export class SnapshotShelf {
  readonly #byId = new Map<string, StoredSnapshot>();

  /** A snapshot by id, else by slug. */
  find(idOrSlug: string): StoredSnapshot | undefined {
    return this.#byId.get(idOrSlug) ?? [...this.#byId.values()].find((stored) => stored.slug === idOrSlug);
  }

  /** Every snapshot, oldest first (id as the tie-break), so pages stay stable while snapshots are taken. */
  all(): StoredSnapshot[] {
    return [...this.#byId.values()].sort(
      (left, right) => left.createdAt - right.createdAt || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0),
    );
  }

  /** A fresh snapshot id. */
  newId(): string {
    for (;;) {
      const id = `sh-${randomToken(20)}`;
      if (!this.#byId.has(id)) return id;
    }
  }

  /** 409 `SLUG_TAKEN` when another snapshot holds `slug`. */
  checkSlugFree(slug: string): void {
    const holder = this.find(slug);
    if (holder?.slug === slug) throw new ApiError(409, "SLUG_TAKEN", `slug ${slug} is held by snapshot ${holder.id}`);
  }

  add(stored: StoredSnapshot): void {
    this.#byId.set(stored.id, stored);
  }

  /** Removes it; false when it was not there. */
  remove(id: string): boolean {
    return this.#byId.delete(id);
  }
}

/** 404 `SNAPSHOT_NOT_FOUND`. */
export function snapshotNotFound(idOrSlug: string): ApiError {
  return new ApiError(404, "SNAPSHOT_NOT_FOUND", `snapshot not found: ${idOrSlug}`);
}

/** A snapshot as `GET /v5/snapshots/{id}` reports it (the SDK's `SnapshotData`). */
export function snapshotJson(stored: StoredSnapshot): Record<string, unknown> {
  return {
    id: stored.id,
    sourceVmId: stored.sourceVmId,
    slug: stored.slug,
    displayName: stored.displayName,
    accountId: null,
    public: false,
    autoDeleteSeconds: null,
    autoDeleteFromPlan: false,
    ttlSeconds: null,
    lastUsedAt: stored.lastUsedAt === null ? null : new Date(stored.lastUsedAt).toISOString(),
    createdAt: new Date(stored.createdAt).toISOString(),
    updatedAt: new Date(stored.updatedAt).toISOString(),
  };
}
