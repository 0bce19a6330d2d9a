import { rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { killLeaf, releaseLeaf, signalCgroup } from "./cgroups.js";
import { killMarked, lastAllocatedPid, type MarkerScope, signalMarked, WRAP_SAFE_MS } from "./command-marker.js";
import type { SpawnPlan } from "./command-plan.js";
import { signalGroup } from "./process-tree.js";

/**
 * Every process that belongs to one spawned command, and how to stop them all:
 * its process group; its cgroup leaf, if it has one; and, under
 * `isolation: "none"`, every process whose environment carries the command's
 * marker (`SANDPORT_LOCAL_COMMAND_ID`, see `command-marker.ts`).
 *
 * What is guaranteed under `none`: a process the command started is killed
 * with it if it stayed in the command's process group, or in its cgroup leaf,
 * or kept the marker in its environment. An argv command without resource
 * limits is moved into its leaf right after `spawn` returns (Node cannot spawn
 * into a cgroup), so a program that forks within that instant after its `exec`
 * AND clears its environment in the child can escape; so can, without a
 * cgroup, any process that leaves the group and clears its environment, and a
 * process that moves itself to another cgroup (which needs write access there).
 * That is unisolated host execution anyway. Commands with resource limits, and
 * shell requests, join their cgroups in `/bin/sh` before anything can fork, so
 * there is no such instant and limits hold from the start. Under
 * `namespaces` the PID namespace takes every descendant with bubblewrap.
 */
export class CommandTree {
  readonly #plan: SpawnPlan;
  readonly #pid: number;
  readonly #started = performance.now();
  /** Whether a process may have been forked before the command was in its leaf. */
  #raced = false;
  /** Whether the leaf is known to be gone already. */
  #released = false;

  /** @param pid the pid `spawn` returned, which leads the command's process group */
  constructor(plan: SpawnPlan, pid: number) {
    this.#plan = plan;
    this.#pid = pid;
  }

  /**
   * Moves the command into its leaf when the plan asks for it (one cgroupfs
   * write), then notes whether any process was created since the command's own
   * (`ns_last_pid`), in which case an escapee is possible and the exit scan
   * runs. Call it right after `spawn`. Returns the error when the move failed
   * for another reason than the command having exited already.
   */
  join(): Error | undefined {
    const leaf = this.#plan.leaf;
    if (!leaf || !this.#plan.joinLeafAfterSpawn) return undefined;
    try {
      writeFileSync(join(leaf.directory, "cgroup.procs"), String(this.#pid));
    } catch (error) {
      this.#raced = true;
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") return error as Error;
      return undefined;
    }
    this.#raced = lastAllocatedPid() !== this.#pid;
    return undefined;
  }

  /** SIGTERM to the group, the leaf's members and the marked processes (the polite first step of a stop). */
  terminate(): void {
    signalGroup(this.#pid, "SIGTERM");
    if (this.#plan.leaf) void signalCgroup(this.#plan.leaf.directory, "SIGTERM");
    if (this.#plan.marker) signalMarked(this.#plan.marker, "SIGTERM", this.#scope());
  }

  /** SIGKILL to the group, the leaf and (rounds until none is left) the marked processes. */
  kill(): void {
    signalGroup(this.#pid, "SIGKILL");
    if (this.#plan.leaf) killLeaf(this.#plan.leaf);
    if (this.#plan.marker) killMarked(this.#plan.marker, this.#scope());
  }

  /**
   * After the command's own process exited: kills whatever it left running.
   * The group always (one signal). The leaf: removed at once when empty (one
   * `rmdir`, the usual case), else killed. The marked processes when the
   * command was stopped, and otherwise only when something may have escaped
   * both: the command was not in a leaf from its first instruction and a
   * process was created after its own (`ns_last_pid` moved). That check costs
   * one small read; the scan (about 20 µs per process looked at) runs only then.
   */
  reap(stopped: boolean): void {
    signalGroup(this.#pid, "SIGKILL");
    const leaf = this.#plan.leaf;
    if (leaf) {
      try {
        rmdirSync(leaf.directory);
        this.#released = true;
      } catch {
        killLeaf(leaf);
      }
    }
    if (!this.#plan.marker) return;
    if (stopped || this.#mayHaveEscaped()) killMarked(this.#plan.marker, this.#scope());
  }

  /** Removes the leaf (killing what is left in it), unless `reap` already did. */
  async release(): Promise<void> {
    if (this.#plan.leaf && !this.#released) await releaseLeaf(this.#plan.leaf);
  }

  #mayHaveEscaped(): boolean {
    if (this.#plan.leaf) return this.#raced;
    return lastAllocatedPid() !== this.#pid;
  }

  /** Processes created after the command's, while that is a safe filter (see `MarkerScope.after`); else all. */
  #scope(): MarkerScope {
    return performance.now() - this.#started < WRAP_SAFE_MS ? { after: this.#pid } : {};
  }
}
