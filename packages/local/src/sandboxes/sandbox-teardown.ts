import { readdir } from "node:fs/promises";
import { SandportError, sleep } from "@sandport/core";
import { removeSandboxCgroups } from "../cgroups/cgroups.js";
import { thawQuietly } from "../cgroups/freezer.js";
import { AsyncCommands } from "../commands/async-commands.js";
import type { RunningCommands } from "../commands/running-commands.js";
import { LOCAL_PROVIDER, type ResolvedLocalOptions } from "../options.js";
import { killMarked, markedProcesses, sandboxPrefix } from "../processes/command-marker.js";
import { isAlive } from "../processes/process-tree.js";
import { RunningMarkers } from "../processes/running-markers.js";
import { killSandboxBubblewraps } from "../processes/sandbox-bubblewraps.js";
import { killNamespaceHolder } from "../processes/sandbox-namespaces.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import type { SandboxStore } from "../store/sandbox-store.js";

/** What {@link stopSandboxProcesses} reaches a sandbox's processes through. */
export interface TeardownInput {
  readonly record: SandboxRecord;
  readonly store: SandboxStore;
  /** The runtime instance's commands in flight. */
  readonly running: RunningCommands;
  readonly options: ResolvedLocalOptions;
}

/**
 * Stops everything running in the sandbox, the first five steps of
 * `SandboxAccess`'s destroy, after thawing a stopped sandbox (its processes
 * then see the SIGTERM of a polite stop, as a running sandbox's do):
 * 1. commands this instance runs (aborted when the destroy began, see `RunningCommands.beginDestroy`; awaited here);
 * 2. async commands (their supervisors and process groups, from their records);
 * 3. commands other processes run there (from their markers in `running/`);
 * 4. everything in the sandbox's cgroups (`cgroup.kill`);
 * 5. under `none`, every process whose `SANDPORT_LOCAL_COMMAND_ID` names this sandbox, in rounds until
 *    a scan of `/proc` finds none alive: what escaped a command's group and cgroup, what a supervisor
 *    killed before its own kill timer left behind, what commands of a runtime process that died left;
 *    under `namespaces`, every bubblewrap process that binds its workspace, the same way: what a
 *    runtime process that died left, once its marker names no live process (see `killSandboxBubblewraps`).
 * A step that cannot be proven fails with `DESTROY_UNVERIFIED`, before any file is touched. Returns the
 * sandbox directory's entries, as listed before step 2, for `SandboxStore.remove`.
 */
export async function stopSandboxProcesses({ record, store, running, options }: TeardownInput): Promise<string[]> {
  const grace = options.killGraceMs;
  await thawQuietly(record.cgroups);
  await running.stopAll(record.id, grace + 2_000);
  // `commands/` exists only once something used it; `running/` may be missing in sandboxes of older versions.
  const names = await readdir(store.sandboxDirectory(record.id)).catch(() => [] as string[]);
  if (names.includes("commands")) await new AsyncCommands(store.commandsDirectory(record.id)).stopAll(grace);
  const strays = names.includes("running") ? await new RunningMarkers(store.runningDirectory(record.id)).killAll() : [];
  const deadline = Date.now() + 2_000;
  while (Date.now() < deadline && strays.some(isAlive)) await sleep(10);
  // Every process of the sandbox dies with its PID namespace's init, whatever the markers say.
  const namespacesGone = record.namespaces ? await killNamespaceHolder(record.namespaces, 2_000 + grace) : true;
  const cgroupsGone = await removeSandboxCgroups(record.cgroups);
  const markedGone = options.isolation !== "none" || (await killEveryMarked(sandboxPrefix(record.id), 2_000 + grace));
  const bubblewrapsGone =
    options.isolation !== "namespaces" ||
    (await killSandboxBubblewraps(options.bwrapPath, store.workspaceDirectory(record), 2_000 + grace));
  if (!cgroupsGone || !markedGone || !namespacesGone || !bubblewrapsGone || strays.some(isAlive)) {
    const left = [
      !namespacesGone && "its PID namespace",
      !bubblewrapsGone && "bubblewrap processes",
      !cgroupsGone && "its cgroups",
      !markedGone && "marked processes",
      strays.some(isAlive) && "commands",
    ];
    throw new SandportError({
      code: "DESTROY_UNVERIFIED",
      provider: LOCAL_PROVIDER,
      message: `could not prove every process of sandbox ${record.id} dead (${left.filter(Boolean).join(", ")}); its files are kept and destroy can be called again`,
      details: { sandboxId: record.id },
    });
  }
  return names;
}

/**
 * SIGKILLs every process carrying a marker that starts with `prefix`, in
 * rounds, until a scan finds none left (`true`) or `timeoutMs` passes (`false`).
 */
async function killEveryMarked(prefix: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    killMarked(prefix, { prefix: true });
    if (markedProcesses(prefix, { prefix: true }).length === 0) return true;
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
}
