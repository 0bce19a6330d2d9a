/**
 * Daytona snapshots taken from sandboxes, as the emulator keeps them: each
 * one a real snapshot of the backend runtime (its files copied by the
 * backend's own `snapshot`), under an organization-unique name.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import type { SandboxHandle, SandboxRuntime, SnapshotRef } from "@sandport/core";

/** One snapshot of the organization. */
export interface DaytonaSnapshot {
  readonly id: string;
  /** Unique in the organization (snapshots and images share the names). */
  readonly name: string;
  /** The sandbox it was taken from. */
  readonly sourceSandboxId: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** The backend's snapshot, which new sandboxes are launched from. */
  readonly backend: SnapshotRef;
}

/** The organization's snapshots taken from sandboxes, with their backend snapshots. */
export class SnapshotTable {
  readonly #snapshots = new Map<string, DaytonaSnapshot>();
  /** Names whose snapshot was deleted: a create naming one is refused, never started from Daytona's default. */
  readonly #deleted = new Set<string>();
  readonly #backend: () => SandboxRuntime;

  /** @param backend the emulator's backend runtime, which must have `snapshot` */
  constructor(backend: () => SandboxRuntime) {
    this.#backend = backend;
  }

  /** Whether `name` is taken (the API refuses a second snapshot under it). */
  has(name: string): boolean {
    return this.all().some((snapshot) => snapshot.name === name);
  }

  /** Takes a backend snapshot of `handle` and records it under `name`. */
  async take(source: { readonly id: string; readonly handle: SandboxHandle }, name: string): Promise<DaytonaSnapshot> {
    const backend = this.#backend();
    if (backend.snapshot === undefined) throw new Error("the emulator's backend runtime takes no snapshots");
    const taken = await backend.snapshot(source.handle, { timeoutMs: 120_000 });
    const snapshot: DaytonaSnapshot = {
      id: randomUUID(),
      name,
      sourceSandboxId: source.id,
      createdAt: Date.now(),
      backend: taken,
    };
    this.#snapshots.set(snapshot.id, snapshot);
    this.#deleted.delete(name);
    return snapshot;
  }

  /** A snapshot by id or name. */
  find(idOrName: string): DaytonaSnapshot | undefined {
    return this.#snapshots.get(idOrName) ?? this.all().find((snapshot) => snapshot.name === idOrName);
  }

  /** Whether `name` was a snapshot's that is deleted now. */
  wasDeleted(name: string): boolean {
    return this.#deleted.has(name);
  }

  /** Every snapshot, newest first (name as the tie-break). */
  all(): DaytonaSnapshot[] {
    return [...this.#snapshots.values()].sort(
      (left, right) => right.createdAt - left.createdAt || left.name.localeCompare(right.name),
    );
  }

  /** Removes a snapshot and its backend snapshot. */
  async delete(snapshot: DaytonaSnapshot): Promise<void> {
    if (!this.#snapshots.delete(snapshot.id)) return;
    this.#deleted.add(snapshot.name);
    await this.#backend().deleteSnapshot?.(snapshot.backend, { timeoutMs: 60_000 });
  }

  /** Deletes every backend snapshot (the emulator is stopping). */
  async clear(): Promise<void> {
    const all = this.all();
    this.#snapshots.clear();
    await Promise.allSettled(
      all.map((entry) => this.#backend().deleteSnapshot?.(entry.backend, { timeoutMs: 60_000 })),
    );
  }
}
