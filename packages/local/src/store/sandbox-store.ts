import { chmod, chown, mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SandportError } from "@sandport/core";
import { foreignSandbox, sandboxNotFound } from "@sandport/core/adapter";
import type { DiskTools } from "../disk/disk-support.js";
import { DISK_MOUNT, diskMounted, makeWorkspaceDisk, unmountWorkspaceDisk } from "../disk/workspace-disk.js";
import { AnchoredDirectory } from "../files/anchored-directory.js";
import { errorCode, pathExists } from "../files/file-errors.js";
import { removeTree } from "../files/remove-tree.js";
import type { FileOwner } from "../files/workspace-walk.js";
import { LOCAL_PROVIDER } from "../options.js";
import { beginLaunch, endLaunch } from "./launches-in-flight.js";
import { failureReason, type Leftover, type LeftoverReport, leftoverReport } from "./leftover-report.js";
import {
  DESTROYING,
  ID_PATTERN,
  PROBE_DIRECTORY,
  RECORD_FILE,
  RUNNING,
  SandboxLayout,
  WORKSPACE,
  WORKSPACE_TMP,
} from "./sandbox-layout.js";
import { parseSandboxRecord, type SandboxRecord } from "./sandbox-record.js";
import { removeSandbox } from "./sandbox-removal.js";
import { createRoot } from "./sandbox-root.js";
import { abandonedStaging, STAGING_PREFIX, stagingName } from "./staging-name.js";

/** What a lookup by id found. */
export type StoredSandbox =
  | { readonly state: "absent" }
  | { readonly state: "foreign"; readonly reason: string }
  | { readonly state: "owned"; readonly record: SandboxRecord };

/**
 * Sandboxes on disk: `<root>/<id>/` holds `sandbox.json` (metadata, mode 0600),
 * `workspace/` (the only directory commands may write), `commands/` (async
 * command records and output), `running/` (markers of running commands),
 * `trash/` (where removed trees are taken apart) and `ports/` (the port relay
 * and its sockets, read-only to commands). A sandbox with a disk bound has
 * `disk.img` and, mounted from it on `disk/`, `disk/workspace/` and
 * `disk/trash/` instead (see `makeWorkspaceDisk`). A sandbox appears
 * atomically: it is built under `<root>/.staging-<id>` and renamed into place,
 * so a sandbox directory always has its metadata, and it keeps its metadata
 * until everything else in it is gone (see {@link SandboxStore.remove}).
 *
 * When commands run as another host user (the record's `user`, else
 * `fileOwner`), that user owns the workspace (mode 0700) and may pass
 * through, not list, the root and the sandbox directory (mode 0711);
 * everything else stays the runtime's.
 */
export class SandboxStore extends SandboxLayout {
  readonly #owner: string;
  readonly #fileOwner: FileOwner | undefined;
  #rootCover: string | undefined;
  readonly #disk: DiskTools | undefined;
  readonly #reclaimMore: (() => Promise<readonly Leftover[]>) | undefined;
  #rootReady: Promise<void> | undefined;
  #reclaimed: Promise<LeftoverReport> | undefined;

  /**
   * @param root absolute directory holding one directory per sandbox
   * @param owner the runtime's ownership marker, written into every record
   * @param fileOwner the host user commands run as, when not the runtime's own and the record names none
   *   (any such user, when each sandbox has its own: it makes the root passable)
   * @param disk the programs that make and remove bounded workspaces, where this process can
   * @param reclaimMore reclaims this store's other leftovers (cgroups, sockets), after its staging directories
   */
  constructor(
    root: string,
    owner: string,
    fileOwner?: FileOwner,
    disk?: DiskTools,
    reclaimMore?: () => Promise<readonly Leftover[]>,
  ) {
    super(root);
    this.#owner = owner;
    this.#fileOwner = fileOwner;
    this.#disk = disk;
    this.#reclaimMore = reclaimMore;
  }

  /**
   * Once {@link ensureRoot} has run, with commands running as another user:
   * the outermost parent of the root that user cannot pass through, if any
   * (commands then start through `bridgedSpawn`).
   */
  get rootCover(): string | undefined {
    return this.#rootCover;
  }

  /**
   * Creates the root (mode 0700, or 0711 when commands run as another user,
   * who must pass through it to reach a workspace), then reclaims this
   * owner's leftovers ({@link leftovers}). Idempotent per store.
   */
  ensureRoot(): Promise<void> {
    this.#rootReady ??= createRoot(this.root, this.#fileOwner)
      .then((cover) => {
        this.#rootCover = cover;
      })
      .then(() => this.#reclaimOnce())
      .then(() => {})
      .catch((error) => {
        this.#rootReady = undefined;
        throw error;
      });
    return this.#rootReady;
  }

  /**
   * The root (made first), and in it a directory with nothing mounted under
   * it, made on first use: what the isolation probe binds to learn whether
   * commands reach the root. Binding the root itself would also bind every
   * bounded workspace's file system under it, which bubblewrap then remounts
   * one by one: one that another launch or destroy mounts or unmounts
   * meanwhile failed the probe (and the probe's verdict lasts the process's life).
   */
  async probeDirectory(): Promise<string> {
    await this.ensureRoot();
    const directory = join(this.root, PROBE_DIRECTORY);
    await mkdir(directory, { mode: 0o711 }).catch((error: unknown) => {
      if (errorCode(error) !== "EEXIST") throw error;
    });
    return directory;
  }

  /**
   * Creates a sandbox directory with its metadata, an empty workspace (plus
   * its `.tmp`) and `running/` (every command writes its marker there, so it
   * is made here, beside the workspace, not on a command's path). `commands/`
   * is created when first needed. `seed`, when given, fills the workspace
   * (a snapshot's files) before the sandbox appears, its files owned by the
   * user it is given (the sandbox's, when not the runtime's own).
   */
  async create(
    record: SandboxRecord,
    seed?: (workspace: string, owner: FileOwner | undefined) => Promise<void>,
  ): Promise<void> {
    await this.ensureRoot();
    const name = stagingName(record.id, this.#owner);
    const staging = join(this.root, name);
    beginLaunch(record.id);
    try {
      await mkdir(staging, { mode: 0o700 }).catch(async (error: NodeJS.ErrnoException) => {
        // The root was removed since this store created it.
        if (error.code !== "ENOENT") throw error;
        this.#rootReady = undefined;
        await this.ensureRoot();
        await mkdir(staging, { mode: 0o700 });
      });
      if (record.disk) await this.#makeDisk(staging, record.disk.bytes);
      const workspace = record.disk ? join(staging, DISK_MOUNT, WORKSPACE) : join(staging, WORKSPACE);
      await this.#fill(staging, workspace, record);
      if (seed) await seed(workspace, this.fileOwnerOf(record));
      await rename(staging, this.sandboxDirectory(record.id));
    } catch (error) {
      await this.#removeQuietly(name);
      throw error;
    } finally {
      endLaunch(record.id);
    }
  }

  /** The host user a sandbox's workspace belongs to, when not the runtime's own. */
  fileOwnerOf(record: Pick<SandboxRecord, "user">): FileOwner | undefined {
    return record.user ?? this.#fileOwner;
  }

  /**
   * Fills a staging directory, with every call that does not wait for
   * another in flight at once: a launch waits for the longest chain (three
   * calls), not for all nine in turn.
   */
  async #fill(staging: string, workspace: string, record: SandboxRecord): Promise<void> {
    const temporary = join(workspace, WORKSPACE_TMP);
    const fileOwner = this.fileOwnerOf(record);
    const workspaceMode = fileOwner ? 0o700 : 0o755;
    const owned = async (path: string) => {
      if (fileOwner) await chown(path, fileOwner.uid, fileOwner.gid);
    };
    // All settled before a failure is reported, so that the cleanup never races a call still in flight.
    await allSettled([
      mkdir(join(staging, RUNNING), { mode: 0o700 }),
      mkdir(workspace, { mode: workspaceMode }).then(() =>
        allSettled([owned(workspace), mkdir(temporary, { mode: workspaceMode }).then(() => owned(temporary))]),
      ),
      fileOwner ? chmod(staging, 0o711) : undefined,
      writeFile(join(staging, RECORD_FILE), JSON.stringify(record), { mode: 0o600, flag: "wx" }),
    ]);
  }

  /** Makes and mounts a bounded workspace's image in a staging directory (`UNSUPPORTED` when there are no tools). */
  async #makeDisk(staging: string, bytes: number): Promise<void> {
    if (!this.#disk) {
      throw new SandportError({
        code: "UNSUPPORTED",
        provider: LOCAL_PROVIDER,
        message: "resources.diskMiB: this runtime cannot make bounded workspaces here",
      });
    }
    await makeWorkspaceDisk(this.#disk, staging, bytes);
  }

  /** Looks a sandbox up. A directory without a well-formed record of this owner is foreign. */
  async read(id: string): Promise<StoredSandbox> {
    let text: string;
    try {
      text = await readFile(join(this.sandboxDirectory(id), RECORD_FILE), "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      return (await pathExists(this.sandboxDirectory(id)))
        ? { state: "foreign", reason: "it has no Sandport metadata" }
        : { state: "absent" };
    }
    const record = parseSandboxRecord(text);
    if (!record || record.id !== id) return { state: "foreign", reason: "its metadata is not Sandport's" };
    if (record.owner !== this.#owner) {
      return { state: "foreign", reason: `it belongs to owner ${JSON.stringify(record.owner)}` };
    }
    return { state: "owned", record };
  }

  /** Reads a sandbox that must exist and be ours: `NOT_FOUND` or `FOREIGN_SANDBOX` otherwise. */
  async require(id: string): Promise<SandboxRecord> {
    const found = await this.read(id);
    if (found.state === "owned") return found.record;
    if (found.state === "absent") throw notFound(id);
    throw foreign(id, found.reason);
  }

  /**
   * Notes that a destroy of `id` has begun, in any runtime: a file stream of
   * another runtime sees it at its next liveness check and closes its file,
   * which would otherwise keep a bounded workspace's file system busy past the
   * destroy's unmount. Removed with the sandbox (a destroy that fails leaves it:
   * the next one finishes the job). Absent is fine.
   */
  async markDestroying(id: string): Promise<void> {
    await writeFile(join(this.sandboxDirectory(id), DESTROYING), "", { mode: 0o600 }).catch((error: unknown) => {
      if (errorCode(error) !== "ENOENT") throw error;
    });
  }

  /** {@link require}, and `NOT_FOUND` as well once a destroy of it has begun (see {@link markDestroying}). */
  async requireUndoomed(id: string): Promise<SandboxRecord> {
    const record = await this.require(id);
    if (await pathExists(join(this.sandboxDirectory(id), DESTROYING))) throw notFound(id);
    return record;
  }

  /**
   * Every sandbox of this owner under the root, in id order. Foreign and
   * half-built ones are skipped; the first listing of a store also removes
   * this owner's abandoned staging directories (see `ensureRoot`), so that
   * `sandport sweep`, which only lists and destroys, clears them too, with
   * any workspace image a killed launch left mounted there.
   */
  async list(): Promise<SandboxRecord[]> {
    await this.#reclaimOnce();
    return this.records();
  }

  /** {@link list} without the reclaim: every sandbox of this owner under the root now, in id order. */
  async records(): Promise<SandboxRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const records: SandboxRecord[] = [];
    for (const name of names.sort()) {
      if (!ID_PATTERN.test(name)) continue;
      const found = await this.read(name);
      if (found.state === "owned") records.push(found.record);
    }
    return records;
  }

  /**
   * Removes the sandbox directory and proves it gone, or rejects with
   * `DESTROY_UNVERIFIED` leaving the sandbox findable, so that a later call
   * finishes the job (see `removeSandbox`).
   *
   * @param names the sandbox directory's entries when the caller has just listed them
   * @param uidMarker the marker of the sandbox's own uid (`SandboxRecord.uidMarker`), when it has one
   */
  remove(id: string, names?: readonly string[], uidMarker?: string): Promise<void> {
    const site = { layout: this, disk: this.#disk, removeInRoot: (name: string) => this.#removeInRoot(name) };
    return removeSandbox(site, id, names, uidMarker);
  }

  /**
   * This store's reclaim, run once, at its first launch or listing (or now):
   * the staging directories of launches that nothing will finish (their
   * process is gone, or is this one and no longer launching them), removed
   * with any workspace image mounted there, then what `reclaimMore` finds.
   * Housekeeping: a failure leaves the leftover for the next runtime (and is
   * reported), and never fails the call that triggered it.
   */
  leftovers(): Promise<LeftoverReport> {
    return this.#reclaimOnce();
  }

  #reclaimOnce(): Promise<LeftoverReport> {
    this.#reclaimed ??= (async () => {
      const staging = await this.#reclaimAbandonedStaging();
      const more = await this.#reclaimMore?.().catch(() => []);
      return leftoverReport([...staging, ...(more ?? [])]);
    })();
    return this.#reclaimed;
  }

  /** Removes every staging directory that `abandonedStaging` proves this owner's and abandoned. */
  async #reclaimAbandonedStaging(): Promise<Leftover[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return []; // Unreadable now: the next runtime over this root tries again.
    }
    const abandoned = names.filter((name) => name.startsWith(STAGING_PREFIX) && abandonedStaging(name, this.#owner));
    return Promise.all(
      abandoned.map(async (name): Promise<Leftover> => {
        const path = join(this.root, name);
        try {
          await this.#removeInRoot(name);
          return { kind: "staging", path, reclaimed: true };
        } catch (error) {
          return { kind: "staging", path, reclaimed: false, reason: failureReason(error) };
        }
      }),
    );
  }

  /** Whether the root holds anything under `id` (a sandbox, or a directory that is not one): an id in use. */
  async holds(id: string): Promise<boolean> {
    return (await this.read(id).catch(() => undefined))?.state !== "absent";
  }

  /** Removes `<root>/<name>` whatever it holds (a mounted workspace image is unmounted first); nothing to do when the root itself is gone. */
  async #removeInRoot(name: string): Promise<void> {
    if (diskMounted(join(this.root, name))) await unmountWorkspaceDisk(join(this.root, name), this.#disk);
    let root: AnchoredDirectory;
    try {
      root = AnchoredDirectory.open(this.root);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return;
      throw error;
    }
    try {
      await removeTree(root, name);
    } finally {
      root.close();
    }
  }

  async #removeQuietly(name: string): Promise<void> {
    await this.#removeInRoot(name).catch(() => {});
  }
}

/** `NOT_FOUND` for a sandbox id. */
export function notFound(id: string): SandportError {
  return sandboxNotFound(LOCAL_PROVIDER, id, "lookup");
}

/** `FOREIGN_SANDBOX` for a sandbox id. */
export function foreign(id: string, reason: string): SandportError {
  return foreignSandbox(LOCAL_PROVIDER, id, "use", reason);
}

/** Waits for every promise to settle, then rejects with the first failure, if any. */
async function allSettled(promises: readonly (Promise<unknown> | undefined)[]): Promise<void> {
  const failure = (await Promise.allSettled(promises)).find((outcome) => outcome.status === "rejected");
  if (failure) throw failure.reason;
}
