import { writeFileSync } from "node:fs";
import { access, mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ResourceLimits, SandportError, sleep, unsupported } from "@sandport/core";
import { LOCAL_PROVIDER } from "../options.js";
import type { CgroupDirectory, SandboxCgroups } from "../store/sandbox-record.js";
import type { CgroupHost, CgroupParent, LimitController } from "./cgroup-host.js";
import { leafPool, makeLeaf } from "./leaf-pool.js";

/** What a sandbox needs from cgroups. */
export interface CgroupNeeds {
  /** Limits to enforce; each one that cannot be is refused with `UNSUPPORTED`. */
  readonly resources?: ResourceLimits;
  /** Whether each command should get its own leaf, so its whole tree can be killed. */
  readonly tracking: boolean;
}

const CPU_PERIOD_US = 100_000;
/** Numbers this process's leaves; with the pid, unique across processes. */
let leafCounter = 0;
const EMPTY_WAIT_MS = 3_000;

/**
 * Creates the sandbox's cgroups (`name`, from `sandboxCgroupName`, under this
 * process's own cgroup in each hierarchy used) and writes its limits, reading
 * each back to prove it took. Returns `undefined` when nothing is needed or
 * available for tracking alone. Refuses with `UNSUPPORTED` a limit no writable
 * hierarchy can carry; whatever was created is removed again on failure.
 */
export async function createSandboxCgroups(
  host: CgroupHost,
  name: string,
  needs: CgroupNeeds,
): Promise<SandboxCgroups | undefined> {
  const created: string[] = [];
  const ensure = async (parent: CgroupParent): Promise<string> => {
    const directory = join(parent.directory, name);
    if (!created.includes(directory)) {
      await mkdir(directory);
      created.push(directory);
    }
    return directory;
  };
  try {
    const limits = new Map<string, CgroupDirectory>();
    const wanted: [LimitController, number][] = [];
    const { memoryMiB, maxProcesses, cpus } = needs.resources ?? {};
    if (memoryMiB !== undefined) wanted.push(["memory", Math.round(memoryMiB * 1024 * 1024)]);
    if (maxProcesses !== undefined) wanted.push(["pids", maxProcesses]);
    if (cpus !== undefined) wanted.push(["cpu", Math.max(1_000, Math.round(cpus * CPU_PERIOD_US))]);
    for (const [controller, value] of wanted) {
      const unified = host.unified;
      if (unified?.controllers.includes(controller) && (await enableController(unified.directory, controller))) {
        const directory = await ensure(unified);
        await writeLimit(2, directory, controller, value);
        limits.set(directory, { version: 2, directory });
        continue;
      }
      const legacy = host.legacy[controller];
      if (!legacy) {
        throw unsupported(
          LOCAL_PROVIDER,
          `resources (${controller})`,
          `no writable cgroup hierarchy with the ${controller} controller is available to this process; ` +
            "run as root on cgroup v1, or with a delegated cgroup v2 subtree, or launch without this limit",
        );
      }
      const directory = await ensure(legacy);
      await writeLimit(1, directory, controller, value);
      limits.set(directory, { version: 1, directory });
    }
    // Made here, never by a command: a command's leaf is created without `-p`, so a command still
    // joining when destroy removes the sandbox's cgroups fails instead of making them again.
    let tracking: SandboxCgroups["tracking"];
    if (needs.tracking) {
      const legacy = host.legacy.pids ?? host.legacy.freezer;
      if (host.unified?.canKill) tracking = { version: 2, directory: await ensure(host.unified) };
      else if (legacy) tracking = { version: 1, directory: await ensure(legacy) };
    }
    if (limits.size === 0 && !tracking) return undefined;
    return tracking ? { limits: [...limits.values()], tracking } : { limits: [...limits.values()] };
  } catch (error) {
    for (const directory of created.reverse()) await rmdir(directory).catch(() => {});
    if (SandportError.isInstance(error)) throw error;
    throw unsupported(LOCAL_PROVIDER, "resources", `could not set up cgroups: ${(error as Error).message}`);
  }
}

/**
 * The leaf for one command under the sandbox's tracking cgroup: a free one
 * from the pool (it exists), else the path of a new one (nothing is created).
 */
export function nameLeaf(cgroups: SandboxCgroups | undefined): string | undefined {
  if (!cgroups?.tracking) return undefined;
  const tracking = cgroups.tracking.directory;
  return leafPool.take(tracking) ?? join(tracking, `exec-${process.pid}-${++leafCounter}`);
}

/**
 * Creates a command's own leaf under the tracking cgroup (made at launch; a
 * leaf from the pool exists already). Never its parent: once destroy has
 * removed the tracking cgroup, this fails rather than make it again. On the
 * thread pool: cgroupfs calls may wait on the kernel, and the event loop must not.
 */
export async function createLeaf(cgroups: SandboxCgroups | undefined): Promise<string | undefined> {
  const leaf = nameLeaf(cgroups);
  if (leaf) await makeLeaf(leaf);
  return leaf;
}

/**
 * Kills whatever is left in a command's leaf, at once (`cgroup.kill` on v2;
 * on v1 the asynchronous member-by-member kill is started).
 */
export function killLeaf(leaf: CgroupDirectory): void {
  if (leaf.version === 1) {
    void killCgroup(1, leaf.directory);
    return;
  }
  try {
    writeFileSync(join(leaf.directory, "cgroup.kill"), "1");
  } catch {
    // Gone already.
  }
}

/**
 * Releases a command's leaf once the command has ended: an empty one goes
 * back to the pool for the sandbox's next command; one with processes left,
 * or one that is not `reusable` (its command was signalled, and a kill of its
 * members may still be under way), is killed and removed.
 */
export async function releaseLeaf(leaf: CgroupDirectory, reusable = true): Promise<void> {
  if (reusable && (await leafPool.keep(leaf))) return;
  leafPool.drop(leaf.directory);
  await removeCgroup(leaf.version, leaf.directory);
}

/** The `cgroup.procs` files a command must join before it may fork: every limit cgroup, the freezer, and its leaf. */
export function joinFiles(cgroups: SandboxCgroups | undefined, leaf: string | undefined): string[] {
  const directories = [...(cgroups?.limits ?? []), ...(cgroups?.freezer ? [cgroups.freezer] : [])]
    .map((cgroup) => cgroup.directory)
    .filter((directory, index, all) => directory !== cgroups?.tracking?.directory && all.indexOf(directory) === index);
  if (leaf) directories.push(leaf);
  return directories.map((directory) => join(directory, "cgroup.procs"));
}

/**
 * Kills every process in a cgroup and its descendants with SIGKILL: at once
 * with `cgroup.kill` on v2; on v1 by signalling each member until none is left
 * (a member forking meanwhile is caught on the next round).
 */
export async function killCgroup(version: 1 | 2, directory: string): Promise<void> {
  if (version === 2) {
    await writeFile(join(directory, "cgroup.kill"), "1").catch(ignoreMissing);
    return;
  }
  for (let round = 0; round < 100; round++) {
    const members = await membersOf(directory);
    if (members.length === 0) return;
    for (const pid of members) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await sleep(round < 10 ? 1 : 10);
  }
}

/** Sends `signal` to every member of a cgroup tree (for the polite SIGTERM before a kill). */
export async function signalCgroup(directory: string, signal: NodeJS.Signals): Promise<void> {
  for (const pid of await membersOf(directory)) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Kills what is left in a cgroup tree, then removes it bottom-up, waiting for
 * dying members to leave. Resolves `true` once the directory is gone (or was
 * never there), `false` if it could not be removed in time.
 */
export async function removeCgroup(version: 1 | 2, directory: string): Promise<boolean> {
  // Fast path: an empty leaf (or one never created) goes at once.
  try {
    await rmdir(directory);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
  }
  await killCgroup(version, directory);
  const started = Date.now();
  for (;;) {
    try {
      for (const child of await subdirectories(directory)) await removeCgroup(version, join(directory, child));
      await rmdir(directory);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return true;
      if (code !== "EBUSY" && code !== "ENOTEMPTY") return false;
      if (Date.now() - started > EMPTY_WAIT_MS) return false;
      if (version === 1) await killCgroup(1, directory);
      await sleep(2);
    }
  }
}

/** Kills and removes every cgroup of a sandbox. Resolves `true` when all are gone. */
export async function removeSandboxCgroups(cgroups: SandboxCgroups | undefined): Promise<boolean> {
  if (!cgroups) return true;
  const all = [...cgroups.limits];
  const tracking = cgroups.tracking;
  if (tracking) leafPool.forget(tracking.directory);
  for (const extra of [tracking, cgroups.freezer]) {
    if (extra && !all.some((known) => known.directory === extra.directory)) all.push(extra);
  }
  let ok = true;
  for (const { version, directory } of all) ok = (await removeCgroup(version, directory)) && ok;
  return ok;
}

/** Process ids in a cgroup and all its descendants. */
export async function membersOf(directory: string): Promise<number[]> {
  const text = await readFile(join(directory, "cgroup.procs"), "utf8").catch(() => "");
  const pids = text
    .split("\n")
    .filter(Boolean)
    .map((line) => Number(line));
  for (const child of await subdirectories(directory)) pids.push(...(await membersOf(join(directory, child))));
  return pids;
}

async function subdirectories(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

async function enableController(parent: string, controller: LimitController): Promise<boolean> {
  const enabled = await readFile(join(parent, "cgroup.subtree_control"), "utf8").catch(() => "");
  if (enabled.split(/\s+/).includes(controller)) return true;
  try {
    await writeFile(join(parent, "cgroup.subtree_control"), `+${controller}`);
    return true;
  } catch {
    return false;
  }
}

async function writeLimit(version: 1 | 2, directory: string, controller: LimitController, value: number) {
  const writes: [string, string][] = [];
  if (controller === "memory") {
    if (version === 2) writes.push(["memory.max", String(value)], ["memory.swap.max", "0"]);
    else writes.push(["memory.limit_in_bytes", String(value)], ["memory.memsw.limit_in_bytes", String(value)]);
  } else if (controller === "pids") {
    writes.push(["pids.max", String(value)]);
  } else if (version === 2) {
    writes.push(["cpu.max", `${value} ${CPU_PERIOD_US}`]);
  } else {
    writes.push(["cpu.cfs_period_us", String(CPU_PERIOD_US)], ["cpu.cfs_quota_us", String(value)]);
  }
  for (const [file, content] of writes) {
    const path = join(directory, file);
    // Swap files exist only with swap accounting; without it there is no swap to escape into.
    const optional = file.includes("swap") || file.includes("memsw");
    if (
      optional &&
      !(await access(path).then(
        () => true,
        () => false,
      ))
    )
      continue;
    await writeFile(path, content);
    const actual = (await readFile(path, "utf8")).trim();
    if (!limitMatches(actual, content)) {
      throw new Error(`${path} reads ${actual} after writing ${content}`);
    }
  }
}

/** Memory limits are rounded to a page; anything else must read back exactly. */
function limitMatches(actual: string, wanted: string): boolean {
  if (actual === wanted) return true;
  const [a, w] = [Number(actual.split(" ")[0]), Number(wanted.split(" ")[0])];
  return Number.isFinite(a) && Number.isFinite(w) && Math.abs(a - w) < 65_536;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}
