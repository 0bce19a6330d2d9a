import { type Labels, SandportError, type SnapshotRef } from "@sandport/core";
import { AnchoredDirectory } from "../files/anchored-directory.js";
import { errorCode } from "../files/file-errors.js";
import type { FileOwner } from "../files/workspace-walk.js";
import { LOCAL_PROVIDER, type ResolvedLocalOptions } from "../options.js";
import type { SandboxStore } from "../store/sandbox-store.js";
import { copyTree } from "./copy-tree.js";
import { SNAPSHOT_RECORD_FORMAT, toSnapshotRef } from "./snapshot-record.js";
import { SnapshotStore } from "./snapshot-store.js";

/**
 * The snapshot work behind `LocalRuntime`: a snapshot is a copy of a
 * sandbox's workspace, taken with `copyTree` (so a command racing it can
 * change what is copied, never make the copy read outside the workspace),
 * kept under the root, and copied into the workspace of each sandbox
 * launched from it.
 */
export class LocalSnapshots {
  readonly #options: ResolvedLocalOptions;
  readonly #sandboxes: () => SandboxStore;
  #store: SnapshotStore | undefined;

  /**
   * @param options the runtime's options (its owner, the user commands run as)
   * @param sandboxes the runtime's sandbox store, created on first use
   */
  constructor(options: ResolvedLocalOptions, sandboxes: () => SandboxStore) {
    this.#options = options;
    this.#sandboxes = sandboxes;
  }

  /** Copies the workspace of live sandbox `sandboxId`, the host directory `workspace`, into a new snapshot. */
  async take(sandboxId: string, workspace: string, labels: Labels, signal: AbortSignal): Promise<SnapshotRef> {
    const record = {
      format: SNAPSHOT_RECORD_FORMAT,
      id: SnapshotStore.newId(),
      owner: this.#options.owner,
      createdAt: new Date().toISOString(),
      labels,
      sourceId: sandboxId,
    } as const;
    await this.#snapshots().create(record, async (files) => {
      const source = openWorkspace(workspace, sandboxId);
      try {
        await copyTree(source, files, { signal });
      } finally {
        source.close();
      }
    });
    return toSnapshotRef(record);
  }

  /**
   * What fills a new sandbox's workspace from snapshot `id`: `NOT_FOUND` now
   * when there is no such snapshot of ours (foreign ones included: a launch
   * never reads them), or later if it is deleted before the copy.
   */
  async seedFrom(id: string): Promise<(workspace: string, owner: FileOwner | undefined) => Promise<void>> {
    const store = this.#snapshots();
    const found = await store.read(SnapshotStore.checkId(id));
    if (found.state !== "owned") throw snapshotNotFound(id);
    // The copy belongs to the new sandbox's user (`owner`: its own uid, when the runtime is root).
    return async (workspace, owner) => {
      let files: AnchoredDirectory;
      try {
        files = AnchoredDirectory.open(store.filesDirectory(id));
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw snapshotNotFound(id);
        throw error;
      }
      try {
        await copyTree(files, workspace, owner ? { owner } : {});
      } finally {
        files.close();
      }
    };
  }

  /** Our snapshots carrying every label of `query`. */
  async list(query: Labels): Promise<SnapshotRef[]> {
    const records = await this.#snapshots().list();
    return records
      .filter((record) => Object.entries(query).every(([key, value]) => record.labels[key] === value))
      .map(toSnapshotRef);
  }

  /** Deletes a snapshot of ours (absent is success; foreign is `FOREIGN_SANDBOX`, untouched). */
  async delete(id: string): Promise<void> {
    const store = this.#snapshots();
    const found = await store.read(SnapshotStore.checkId(id));
    if (found.state === "absent") return;
    if (found.state === "foreign") {
      throw new SandportError({
        code: "FOREIGN_SANDBOX",
        provider: LOCAL_PROVIDER,
        retryable: false,
        message: `local snapshot ${id} is not this runtime's (${found.reason}); refusing to delete it`,
        details: { snapshotId: id, operation: "deleteSnapshot" },
      });
    }
    await store.remove(id);
  }

  #snapshots(): SnapshotStore {
    this.#store ??= new SnapshotStore(this.#sandboxes().root, this.#options.owner);
    return this.#store;
  }
}

/** Holds a sandbox's workspace open: `NOT_FOUND` when the sandbox went away meanwhile. */
function openWorkspace(path: string, sandboxId: string): AnchoredDirectory {
  try {
    return AnchoredDirectory.open(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: LOCAL_PROVIDER,
        message: `sandbox ${sandboxId} was destroyed while its snapshot was taken`,
        details: { sandboxId },
        cause: error,
      });
    }
    throw error;
  }
}

/** `NOT_FOUND` for a snapshot id. */
function snapshotNotFound(id: string): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: LOCAL_PROVIDER,
    message: `snapshot ${id} does not exist (or is not this runtime owner's)`,
    details: { snapshotId: id },
  });
}
