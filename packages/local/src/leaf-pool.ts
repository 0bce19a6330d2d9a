import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { CgroupDirectory } from "./sandbox-record.js";

/** Empty leaves kept per sandbox; more than this many commands at once make new ones, removed after use. */
export const MAX_FREE_LEAVES = 8;

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
  /** Counts {@link forget} calls, so that a {@link keep} that overlapped one keeps nothing. */
  #forgets = 0;

  /** A free leaf under `tracking` (it exists), or `undefined` when there is none. */
  take(tracking: string): string | undefined {
    const free = this.#free.get(tracking);
    const leaf = free?.pop();
    if (free?.length === 0) this.#free.delete(tracking);
    return leaf;
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
    const members = await readFile(join(leaf.directory, "cgroup.procs"), "utf8").catch(() => undefined);
    // Missing or not empty: not reusable. A sandbox forgotten meanwhile may be this one.
    if (members !== "" || forgets !== this.#forgets) return false;
    const free = this.#free.get(tracking) ?? [];
    if (free.length >= MAX_FREE_LEAVES || free.includes(leaf.directory)) return false;
    free.push(leaf.directory);
    this.#free.set(tracking, free);
    return true;
  }

  /** Drops the free leaves of a sandbox whose cgroups are being removed. */
  forget(tracking: string): void {
    this.#forgets++;
    this.#free.delete(tracking);
  }
}

/** The process's one pool: leaves are named per process, so every runtime in it shares them. */
export const leafPool = new LeafPool();
