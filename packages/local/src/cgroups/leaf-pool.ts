import { type FileHandle, mkdir, open, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { CgroupDirectory } from "../store/sandbox-record.js";

/** Empty leaves kept per sandbox; more than this many commands at once make new ones, removed after use. */
export const MAX_FREE_LEAVES = 8;

/**
 * Empty leaves kept in all, across sandboxes. Each holds a descriptor, and a
 * sandbox destroyed by another process is never forgotten here: past this
 * many, the sandbox whose leaves were kept first loses them (they stay empty
 * under its tracking cgroup, which its `destroy` removes).
 */
export const MAX_KEPT_LEAVES = 256;

/**
 * Command leaves that ended empty, kept for the next command of the same
 * sandbox: creating and removing a cgroup are the costly cgroupfs calls (the
 * kernel sets up and later retires its state), writing a pid into one that
 * exists is not. A leaf is handed out to one command at a time; one that is
 * not empty when its command ends is never kept. Keyed by the sandbox's
 * tracking cgroup, the parent of its leaves; {@link forget} drops a sandbox's
 * leaves when the sandbox goes.
 */
export class LeafPool {
  readonly #free = new Map<string, string[]>();
  /**
   * The open `cgroup.procs` of each leaf {@link join} made and not yet
   * dropped: moving a command in, or checking that a leaf is empty, is then
   * one call instead of an open, a transfer and a close. Close-on-exec, like
   * every descriptor Node opens: never inherited by a command.
   */
  readonly #members = new Map<string, FileHandle>();
  /** Counts {@link forget} calls, so that a {@link keep} that overlapped one keeps nothing. */
  #forgets = 0;
  /** Leaves in {@link #free}, all sandboxes together. */
  #kept = 0;
  readonly #maxKept: number;

  /** @param maxKept free leaves kept in all ({@link MAX_KEPT_LEAVES}) */
  constructor(maxKept = MAX_KEPT_LEAVES) {
    this.#maxKept = maxKept;
  }

  /** A free leaf under `tracking` (it exists), or `undefined` when there is none. */
  take(tracking: string): string | undefined {
    const free = this.#free.get(tracking);
    const leaf = free?.pop();
    if (leaf !== undefined) this.#kept--;
    if (free?.length === 0) this.#free.delete(tracking);
    return leaf;
  }

  /**
   * Moves process `pid` into `leaf`, creating the leaf first when this pool
   * has not made it yet (never its parent, the sandbox's tracking cgroup).
   * Rejects like a write to `cgroup.procs` (`ESRCH` when the process has
   * exited already), or `ENOENT` once the sandbox's cgroups are removed.
   */
  async join(leaf: string, pid: number): Promise<void> {
    const held = this.#members.get(leaf);
    if (held) {
      try {
        await held.write(String(pid));
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ESRCH") throw error;
        // The leaf was removed behind the pool's back: make it afresh.
        this.drop(leaf);
      }
    }
    await makeLeaf(leaf);
    const members = await open(join(leaf, "cgroup.procs"), "r+");
    this.#members.set(leaf, members);
    await members.write(String(pid));
  }

  /**
   * Keeps `leaf` for reuse if it still exists and has no member. Resolves
   * `true` when kept; `false` (missing, members left, pool full) means the
   * caller kills what is left in it and removes it.
   */
  async keep(leaf: CgroupDirectory): Promise<boolean> {
    const tracking = dirname(leaf.directory);
    if ((this.#free.get(tracking)?.length ?? 0) >= MAX_FREE_LEAVES) return false;
    const forgets = this.#forgets;
    // Missing or not empty: not reusable. A sandbox forgotten meanwhile may be this one.
    if (!(await this.#isEmpty(leaf.directory)) || forgets !== this.#forgets) return false;
    const free = this.#free.get(tracking) ?? [];
    if (free.length >= MAX_FREE_LEAVES || free.includes(leaf.directory)) return false;
    free.push(leaf.directory);
    this.#free.set(tracking, free);
    this.#kept++;
    // Maps iterate in insertion order: the first entry is the sandbox that has kept leaves longest.
    for (const oldest of this.#free.keys()) {
      if (this.#kept <= this.#maxKept) break;
      this.#release(oldest);
    }
    return this.#free.get(tracking)?.includes(leaf.directory) === true;
  }

  /** Drops the free leaves of a sandbox whose cgroups are being removed. */
  forget(tracking: string): void {
    this.#forgets++;
    this.#release(tracking);
  }

  /** Closes what the pool holds open of a leaf that is about to be removed. */
  drop(leaf: string): void {
    const members = this.#members.get(leaf);
    this.#members.delete(leaf);
    void members?.close().catch(() => {});
  }

  /** Stops keeping a sandbox's free leaves. */
  #release(tracking: string): void {
    const free = this.#free.get(tracking) ?? [];
    for (const leaf of free) this.drop(leaf);
    this.#kept -= free.length;
    this.#free.delete(tracking);
  }

  /** Whether a leaf exists and has no member: one byte read at offset 0 of its `cgroup.procs`. */
  async #isEmpty(leaf: string): Promise<boolean> {
    const members = this.#members.get(leaf);
    if (!members) return (await readFile(join(leaf, "cgroup.procs"), "utf8").catch(() => undefined)) === "";
    // A removed cgroup's files fail to read (ENODEV): not empty, not reusable.
    const read = await members.read(Buffer.alloc(1), 0, 1, 0).catch(() => undefined);
    return read?.bytesRead === 0;
  }
}

/** The process's one pool: leaves are named per process, so every runtime in it shares them. */
export const leafPool = new LeafPool();

/**
 * `mkdir` of a command's leaf, never of its parent (the sandbox's tracking
 * cgroup, made at launch): once destroy has removed that, this fails rather
 * than make it again. A leaf that exists (from the pool) is fine.
 */
export async function makeLeaf(leaf: string): Promise<void> {
  await mkdir(leaf).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
}
