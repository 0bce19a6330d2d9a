/**
 * E2B snapshots as the emulator keeps them: each one a real snapshot of the
 * backend runtime (its files copied by the backend's own `snapshot`), named
 * the way E2B names snapshot templates.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import type { SandboxHandle, SandboxRuntime, SnapshotRef } from "@sandport/core";
import type { E2BTemplateSize } from "./context.js";

/** The tag E2B gives a snapshot template when the name carries none (`id.DefaultTag`). */
export const DEFAULT_TAG = "default";

/** One snapshot template of the emulated team. */
export interface E2BSnapshot {
  /** `snapshotID`: `<team>/<alias>:<tag>` when named, else `<template id>:<tag>`. */
  readonly id: string;
  /** Full names (`<team>/<alias>`); empty for an unnamed snapshot. */
  readonly names: readonly string[];
  /** The template id behind it (what `DELETE /templates/{id}` also accepts). */
  readonly templateId: string;
  /** The sandbox it was taken from. */
  readonly sourceSandboxId: string;
  /** The source sandbox's sizes, which a sandbox created from the snapshot gets (its build's). */
  readonly size: E2BTemplateSize;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** The backend's snapshot, which new sandboxes are launched from. */
  readonly backend: SnapshotRef;
}

/** The team's snapshot templates, with their backend snapshots. */
export class SnapshotTable {
  readonly #snapshots = new Map<string, E2BSnapshot>();
  readonly #backend: () => SandboxRuntime;

  /** @param backend the emulator's backend runtime, which must have `snapshot` */
  constructor(backend: () => SandboxRuntime) {
    this.#backend = backend;
  }

  /**
   * Takes a backend snapshot of `handle` and records it under `alias` (a new
   * build of an existing name replaces that name's snapshot, as E2B assigns
   * it to the existing template) or under a fresh template id.
   */
  async take(
    source: { readonly id: string; readonly handle: SandboxHandle; readonly size: E2BTemplateSize },
    naming: { readonly team: string; readonly alias: string | undefined; readonly tag: string },
  ): Promise<E2BSnapshot> {
    const backend = this.#backend();
    if (backend.snapshot === undefined) throw new Error("the emulator's backend runtime takes no snapshots");
    const taken = await backend.snapshot(source.handle, { timeoutMs: 120_000 });
    const name = naming.alias === undefined ? undefined : `${naming.team}/${naming.alias}`;
    const existing = name === undefined ? undefined : this.all().find((snapshot) => snapshot.names.includes(name));
    const templateId = existing?.templateId ?? randomBytes(10).toString("hex");
    const snapshot: E2BSnapshot = {
      id: `${name ?? templateId}:${naming.tag}`,
      names: name === undefined ? [] : [name],
      templateId,
      sourceSandboxId: source.id,
      size: source.size,
      createdAt: Date.now(),
      backend: taken,
    };
    const replaced = this.#snapshots.get(snapshot.id);
    this.#snapshots.set(snapshot.id, snapshot);
    if (replaced) await this.#dropBackend(replaced);
    return snapshot;
  }

  /** The snapshot a template reference names (its id, `<name>`, `<name>:<tag>` or the template id), if any. */
  find(reference: string): E2BSnapshot | undefined {
    const exact = this.#snapshots.get(reference);
    if (exact) return exact;
    const withTag = reference.includes(":") ? reference : `${reference}:${DEFAULT_TAG}`;
    return this.all().find(
      (snapshot) =>
        snapshot.id === withTag ||
        snapshot.templateId === reference ||
        `${snapshot.templateId}:${DEFAULT_TAG}` === withTag,
    );
  }

  /** Every snapshot, oldest first (id as the tie-break). */
  all(): E2BSnapshot[] {
    return [...this.#snapshots.values()].sort(
      (left, right) => left.createdAt - right.createdAt || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0),
    );
  }

  /** Removes every tag of the template behind `snapshot`, and their backend snapshots. */
  async delete(snapshot: E2BSnapshot): Promise<void> {
    const gone = this.all().filter((entry) => entry.templateId === snapshot.templateId);
    for (const entry of gone) this.#snapshots.delete(entry.id);
    await Promise.all(gone.map((entry) => this.#dropBackend(entry)));
  }

  /** Deletes every backend snapshot (the emulator is stopping). */
  async clear(): Promise<void> {
    const all = this.all();
    this.#snapshots.clear();
    await Promise.allSettled(all.map((entry) => this.#dropBackend(entry)));
  }

  async #dropBackend(snapshot: E2BSnapshot): Promise<void> {
    await this.#backend().deleteSnapshot?.(snapshot.backend, { timeoutMs: 60_000 });
  }
}
