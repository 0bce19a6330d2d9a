import { killLeaf, releaseLeaf, signalCgroup } from "../cgroups/cgroups.js";
import { leafPool } from "../cgroups/leaf-pool.js";
import {
  killMarked,
  lastAllocatedPid,
  type MarkerScope,
  signalMarked,
  WRAP_SAFE_MS,
} from "../processes/command-marker.js";
import { descendants, signalGroup, signalProcess } from "../processes/process-tree.js";
import type { SpawnPlan } from "./command-plan.js";

/**
 * Every process that belongs to one spawned command, and how to stop them all:
 * its process group; its cgroup leaf, if it has one; and, under
 * `isolation: "none"`, every process whose environment carries the command's
 * marker (`SANDPORT_LOCAL_COMMAND_ID`, see `../processes/command-marker.ts`).
 *
 * What is guaranteed under `none`: a process the command started is killed
 * with it if it stayed in the command's process group, or kept the marker in
 * its environment, or (where a writable cgroup exists) was forked after the
 * command was moved into its cgroup leaf. Node cannot spawn into a cgroup, and
 * a move waits on the kernel (an RCU grace period), so the move of a command
 * without resource limits happens in the background, off the event loop and
 * off the command's own path: a process forked before it lands, that left the
 * group and cleared its environment, can escape; so can, without a cgroup, any
 * process that leaves the group and clears its environment, and one that
 * moves itself to another cgroup (which needs write access there). That is
 * unisolated host execution anyway. Commands with resource limits join their
 * cgroups in `/bin/sh` before anything can fork, so limits hold from the
 * start. Under `namespaces` the PID namespace takes every descendant with
 * bubblewrap, and no cgroup is involved unless the sandbox has limits.
 */
export class CommandTree {
  readonly #plan: SpawnPlan;
  readonly #pid: number;
  readonly #started = performance.now();
  /** The background move into the leaf: `true` once the command is in it. */
  #joined: Promise<boolean> = Promise.resolve(false);
  /** Why the move failed, when it did (the command was still running). */
  #joinError: Error | undefined;
  /**
   * Set once the command's own process has exited and {@link reap} has run:
   * from then on its pid names no group of ours (an emptied group's id is free
   * for reuse: host pids wrap every few minutes under a test suite's load), so the group is
   * never signalled again; the leaf and the marker still are.
   */
  #reaped = false;
  /** Set once the command's leaf or group was signalled (a stop or a kill): its leaf then goes, never to the pool. */
  #signalled = false;

  /** @param pid the pid `spawn` returned, which leads the command's process group */
  constructor(plan: SpawnPlan, pid: number) {
    this.#plan = plan;
    this.#pid = pid;
  }

  /** Why the background move into the leaf failed, if it did; the command has then been killed. */
  get joinError(): Error | undefined {
    return this.#joinError;
  }

  /**
   * When the plan asks for it, starts moving the command into its leaf, in
   * the background: create the leaf if it is new, write the pid into its `cgroup.procs`.
   * If that fails while the command runs, the command is killed and
   * {@link joinError} says why. Call it right after `spawn`.
   */
  join(): void {
    const leaf = this.#plan.leaf;
    if (!leaf || !this.#plan.joinLeafAfterSpawn) return;
    this.#joined = leafPool.join(leaf.directory, this.#pid).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        // ESRCH: the command has exited already; there is nothing to track.
        if (error.code !== "ESRCH") {
          this.#joinError = error;
          this.kill();
        }
        return false;
      },
    );
  }

  /**
   * SIGTERM to the group, the leaf's members and the marked processes (the
   * polite first step of a stop). Under namespaces of its own, bubblewrap is
   * first frozen (SIGSTOP) and its descendants SIGKILLed, the PID namespace's
   * init among them, which takes the namespace down: bubblewrap sets the
   * parent-death signal of its child only once that runs, so a bubblewrap
   * stopped right after `spawn` could die before, and leave the command
   * running on (about 1 stop in 20 right after spawn did). Frozen, it can
   * fork no child the scan would miss; what it had forked before and that
   * has not left its group dies with the group when it is reaped.
   */
  terminate(): void {
    this.#signalled = true;
    const ownNamespaces = this.#plan.isolation === "namespaces" && !this.#plan.namespaces;
    if (!this.#reaped && ownNamespaces) {
      signalGroup(this.#pid, "SIGSTOP");
      for (const descendant of descendants(this.#pid)) signalProcess(descendant.pid, "SIGKILL");
    }
    if (!this.#reaped) signalGroup(this.#pid, "SIGTERM");
    if (!this.#reaped && ownNamespaces) signalGroup(this.#pid, "SIGCONT");
    if (this.#plan.leaf) void signalCgroup(this.#plan.leaf.directory, "SIGTERM");
    if (this.#plan.marker) signalMarked(this.#plan.marker, "SIGTERM", this.#scope());
  }

  /** SIGKILL to the group, the leaf and (rounds until none is left) the marked processes. */
  kill(): void {
    this.#signalled = true;
    if (!this.#reaped) signalGroup(this.#pid, "SIGKILL");
    if (this.#plan.leaf) killLeaf(this.#plan.leaf);
    if (this.#plan.marker) killMarked(this.#plan.marker, this.#scope());
  }

  /**
   * After the command's own process exited: kills whatever it left running,
   * when it can have left anything. Under `namespaces` with namespaces of its
   * own, nothing: every process of the command was in its PID namespace,
   * which died with bubblewrap (and bubblewrap's group holds only bubblewrap:
   * it starts the namespace in a session of its own). Under `none`, and in a
   * sandbox's shared namespaces (the command carries a marker there), if no process was created after the
   * command's own (`ns_last_pid` has not moved; one small read), the command
   * forked nothing: its group is empty (a group's members are its session's,
   * and its session was new) and no process carries its marker. Otherwise, or
   * when the command was stopped: the group (one signal) and, under `none`,
   * the marked processes (a scan of about 20 µs per process looked at). The
   * leaf is killed and removed in the background once the move into it has
   * settled (see {@link release}). Call it once, when the command's process
   * has exited: later stops signal only the leaf and the marker.
   */
  reap(stopped: boolean): void {
    if (this.#reaped) return;
    this.#reaped = true;
    if (!stopped && (!this.#plan.marker || lastAllocatedPid() === this.#pid)) return;
    signalGroup(this.#pid, "SIGKILL");
    const marker = this.#plan.marker;
    if (marker) killMarked(marker, this.#scope());
  }

  /**
   * Kills what is left in the leaf and removes it, once the background move
   * has settled. Resolves when done; nothing waits for it on a command's
   * path (destroy removes every leaf of a sandbox anyway). Never rejects.
   */
  async release(): Promise<void> {
    const leaf = this.#plan.leaf;
    if (!leaf) return;
    await this.#joined;
    // A leaf this command signalled is never handed to another: a signal sent by a read of its members (and,
    // on cgroup v1, a kill loop that runs for rounds) may still land, on whatever joined it by then.
    await releaseLeaf(leaf, !this.#signalled).catch(() => {});
  }

  /** Processes created after the command's, while that is a safe filter (see `MarkerScope.after`); else all. */
  #scope(): MarkerScope {
    return performance.now() - this.#started < WRAP_SAFE_MS ? { after: this.#pid } : {};
  }
}
