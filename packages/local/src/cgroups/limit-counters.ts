import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ResourceLimitKind, sleep } from "@sandport/core";
import type { SandboxCgroups } from "../store/sandbox-record.js";

/**
 * What a sandbox's limit cgroups have counted so far: processes the kernel's
 * OOM killer killed at the memory limit, and forks refused at the process
 * limit. Monotonic counters of the kernel; each is 0 where its file is absent.
 */
export interface LimitCounters {
  /** v2 `memory.events` `oom_kill` (plus `oom_group_kill`), v1 `memory.oom_control` `oom_kill`. */
  readonly oomKills: number;
  /** `pids.events` `max`: forks refused at `pids.max` (v2 and v1 alike). */
  readonly forkRefusals: number;
  /** `pids.current`: processes the sandbox holds now, zombies not yet reaped included. */
  readonly processes: number;
}

/** The counter files of one limit cgroup (see {@link LimitCounters}); one that does not exist reads as empty. */
export interface CounterFiles {
  /** v2 `memory.events`, v1 `memory.oom_control`. */
  readonly memory: string;
  /** `pids.events`. */
  readonly pids: string;
  /** `pids.current`. */
  readonly current: string;
}

/** The counter files of every limit cgroup of a sandbox; empty when it has no limits. */
export function counterFiles(cgroups: SandboxCgroups | undefined): CounterFiles[] {
  return (cgroups?.limits ?? []).map(({ version, directory }) => ({
    memory: join(directory, version === 2 ? "memory.events" : "memory.oom_control"),
    pids: join(directory, "pids.events"),
    current: join(directory, "pids.current"),
  }));
}

/**
 * The counters in the texts of {@link counterFiles} (each `""` where the file
 * could not be read, counting 0): summed over the sandbox's cgroups.
 */
export function countersFrom(texts: readonly CounterFiles[]): LimitCounters {
  let oomKills = 0;
  let forkRefusals = 0;
  let processes = 0;
  for (const { memory, pids, current } of texts) {
    const memoryEvents = keyed(memory);
    // v1's memory.oom_control has no oom_group_kill: it adds nothing there.
    oomKills += (memoryEvents.get("oom_kill") ?? 0) + (memoryEvents.get("oom_group_kill") ?? 0);
    forkRefusals += keyed(pids).get("max") ?? 0;
    processes += Number(current.trim()) || 0;
  }
  return { oomKills, forkRefusals, processes };
}

/**
 * Reads the counters of every limit cgroup of a sandbox (its `memory` and
 * `pids` cgroups, one directory on v2, one per hierarchy on v1), or
 * `undefined` when it has no limits. A counter file that is missing (a
 * controller not in that cgroup, a kernel too old to count OOM kills in
 * `memory.oom_control`, before 4.13) counts 0: nothing is reported from it.
 * The cgroups are the sandbox's, not the command's: every command of the
 * sandbox adds to them.
 */
export async function readLimitCounters(cgroups: SandboxCgroups | undefined): Promise<LimitCounters | undefined> {
  const files = counterFiles(cgroups);
  if (files.length === 0) return undefined;
  const read = (path: string) => readFile(path, "utf8").catch(() => "");
  const texts = await Promise.all(
    files.map(async ({ memory, pids, current }) => {
      const [memoryText, pidsText, currentText] = await Promise.all([read(memory), read(pids), read(current)]);
      return { memory: memoryText, pids: pidsText, current: currentText };
    }),
  );
  return countersFrom(texts);
}

/** How long {@link awaitProcessesReleased} waits at most. */
export const RELEASE_WAIT_MS = 5_000;

/**
 * After a command that hit the process limit: waits until the sandbox holds
 * no more processes than before the command started (at most
 * {@link RELEASE_WAIT_MS}), so the result comes back with the slots free and
 * the next command can fork. Under `isolation: "none"` the command's
 * leftovers, killed as it ends, are orphans of the host's init and keep their
 * slots until init reaps them; under `namespaces` their PID namespace's init
 * reaps them at once. A command of the same sandbox started meanwhile may keep
 * the count up: the wait then ends at its bound.
 */
export async function awaitProcessesReleased(
  cgroups: SandboxCgroups | undefined,
  before: LimitCounters,
): Promise<void> {
  const started = performance.now();
  for (let round = 0; performance.now() - started < RELEASE_WAIT_MS; round++) {
    const now = await readLimitCounters(cgroups);
    if (!now || now.processes <= before.processes) return;
    await sleep(round < 10 ? 2 : 20);
  }
}

/**
 * The limit the counters say was enforced between `before` and `after`: an
 * OOM kill (`memory`) over a refused fork (`processes`), since a kill stops a
 * command outright where a refused fork is something it may survive.
 * `undefined` when neither counter grew or either reading is missing.
 */
export function limitBetween(
  before: LimitCounters | undefined,
  after: LimitCounters | undefined,
): ResourceLimitKind | undefined {
  if (!before || !after) return undefined;
  if (after.oomKills > before.oomKills) return "memory";
  if (after.forkRefusals > before.forkRefusals) return "processes";
  return undefined;
}

/** `key value` lines (a cgroup event file's text) as a map. */
function keyed(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    const [key, value] = line.trim().split(/\s+/);
    const number = Number(value);
    if (key && Number.isFinite(number)) values.set(key, number);
  }
  return values;
}
