import { accessSync, constants, readFileSync } from "node:fs";
import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { release } from "node:os";
import { join } from "node:path";
import { sleep, unsupported } from "@sandport/core";
import { LOCAL_PROVIDER } from "../options.js";
import type { CgroupDirectory, SandboxCgroups } from "../store/sandbox-record.js";
import { type CgroupHost, ownDirectory, parseMount } from "./cgroup-host.js";

/** Whether this process can freeze the sandboxes it launches; when not, why. */
export type FreezerSupport = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** What {@link judgeFreezer} decides from: the process's platform, kernel and cgroup view. */
export interface FreezerFacts {
  /** `process.platform`. */
  readonly platform: string;
  /** The kernel release (`os.release()`), e.g. `6.1.0-18-amd64`. */
  readonly kernel: string;
  /** `/proc/self/mountinfo`. */
  readonly mountinfo: string;
  /** `/proc/self/cgroup`. */
  readonly membership: string;
  /** Whether this process may create a child cgroup in `directory` (write access to it). */
  readonly writable: (directory: string) => boolean;
}

/**
 * The oldest kernel whose cgroup v2 has both `cgroup.freeze` (5.2) and
 * `cgroup.kill` (5.14). The kill file is required too: under `isolation:
 * "none"` a command's tracking leaf must sit inside the sandbox's v2 cgroup,
 * which is where the freezer is, and tracking uses v2 only where it can kill.
 */
const MINIMUM_KERNEL: readonly [number, number] = [5, 14];

/**
 * Decides, without creating anything, whether sandboxes launched by this
 * process can be frozen: Linux, a kernel with the cgroup v2 freezer and kill
 * files, a cgroup2 mount holding this process's own cgroup, and write access
 * to that cgroup's directory (root, or a delegated subtree). Pure, for tests;
 * {@link freezerSupport} feeds it this process's facts.
 */
export function judgeFreezer(facts: FreezerFacts): FreezerSupport {
  if (facts.platform !== "linux") return { ok: false, reason: `cgroups are Linux's; this is ${facts.platform}` };
  const [major = 0, minor = 0] = facts.kernel.split(/[.-]/).map((part) => Number.parseInt(part, 10));
  const [needMajor, needMinor] = MINIMUM_KERNEL;
  if (major < needMajor || (major === needMajor && minor < needMinor)) {
    return {
      ok: false,
      reason: `kernel ${facts.kernel} is older than ${needMajor}.${needMinor}, the first with the cgroup v2 freezer and kill files`,
    };
  }
  const path = /^0::(.*)$/m.exec(facts.membership)?.[1];
  const mount = facts.mountinfo
    .split("\n")
    .map(parseMount)
    .find((candidate) => candidate?.type === "cgroup2");
  const directory = mount && path !== undefined ? ownDirectory(mount, path) : undefined;
  if (!directory) return { ok: false, reason: "no cgroup v2 hierarchy holding this process is mounted" };
  if (!facts.writable(directory)) {
    return {
      ok: false,
      reason: `this process cannot create cgroups in its own cgroup ${directory} (run as root, or with a delegated cgroup v2 subtree)`,
    };
  }
  return { ok: true };
}

let support: FreezerSupport | undefined;

/**
 * {@link judgeFreezer} for this process, decided once per process from two
 * small `/proc` files and one `access` call: a runtime declares `lifecycle`
 * at construction, before anything async can run.
 */
export function freezerSupport(): FreezerSupport {
  if (support) return support;
  try {
    support = judgeFreezer({
      platform: process.platform,
      kernel: release(),
      mountinfo: process.platform === "linux" ? readFileSync("/proc/self/mountinfo", "utf8") : "",
      membership: process.platform === "linux" ? readFileSync("/proc/self/cgroup", "utf8") : "",
      writable: (directory) => {
        try {
          accessSync(directory, constants.W_OK);
          return true;
        } catch {
          return false;
        }
      },
    });
  } catch (error) {
    support = { ok: false, reason: `could not read this process's cgroups: ${(error as Error).message}` };
  }
  return support;
}

/**
 * Gives a sandbox its freezer: the cgroup `name` (from `sandboxCgroupName`) in the unified
 * hierarchy (the one `createSandboxCgroups` made for limits or tracking, when
 * it did, else a new one), recorded as `freezer`. Every command of the
 * sandbox joins it (`joinFiles`) or a leaf beneath it, so writing its
 * `cgroup.freeze` freezes them all. Refuses with `UNSUPPORTED` when the
 * hierarchy is not writable after all; the caller removes what was made.
 */
export async function addFreezer(
  host: CgroupHost,
  name: string,
  cgroups: SandboxCgroups | undefined,
): Promise<SandboxCgroups> {
  const unified = host.unified;
  if (!unified?.canKill) {
    throw unsupported(
      LOCAL_PROVIDER,
      "stop/start",
      'this runtime declares lifecycle, but no writable cgroup v2 hierarchy with cgroup.kill is available to this process; pass cgroups: "disabled" to launch sandboxes that cannot be stopped',
    );
  }
  const directory = join(unified.directory, name);
  let made = false;
  try {
    await mkdir(directory).then(
      () => {
        made = true;
      },
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      },
    );
    await access(join(directory, "cgroup.freeze"));
  } catch (error) {
    // One that createSandboxCgroups made is the caller's to remove, with the rest.
    if (made) await rmdir(directory).catch(() => {});
    throw unsupported(
      LOCAL_PROVIDER,
      "stop/start",
      `could not make the sandbox's freezer cgroup: ${(error as Error).message}`,
    );
  }
  const freezer: CgroupDirectory = { version: 2, directory };
  return { ...(cgroups ?? { limits: [] }), freezer };
}

/**
 * Each freezer's last transition started by this process: the next one waits
 * for it. Two at once would each wait for their own state, which the other's
 * write took away (a fork's thaw beside another fork's freeze of the same
 * source): one of them until its signal fired.
 */
const transitions = new Map<string, Promise<void>>();

/**
 * Freezes (`true`) or thaws (`false`) every process in a freezer cgroup and
 * its descendants, and resolves once the kernel reports it done
 * (`cgroup.events` says `frozen 1` or `frozen 0`; freezing is asynchronous: a
 * process in the middle of a system call stops when it returns to user
 * space). A frozen process is killed by SIGKILL all the same. Transitions of
 * one freezer in this process run one after another, in call order. Rejects
 * with `signal`'s reason when it fires first (before its turn, nothing is
 * written), and with the file system's error (`ENOENT`) when the cgroup is gone.
 */
export function setFrozen(directory: string, frozen: boolean, signal: AbortSignal): Promise<void> {
  const previous = transitions.get(directory);
  const transition = (previous ?? Promise.resolve())
    .catch(() => {})
    .then(() => writeAndSettle(directory, frozen, signal));
  transitions.set(directory, transition);
  const forget = () => {
    if (transitions.get(directory) === transition) transitions.delete(directory);
  };
  transition.then(forget, forget);
  return transition;
}

async function writeAndSettle(directory: string, frozen: boolean, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason;
  await writeFile(join(directory, "cgroup.freeze"), frozen ? "1" : "0");
  const wanted = frozen ? "1" : "0";
  for (let round = 0; ; round++) {
    const events = await readFile(join(directory, "cgroup.events"), "utf8");
    if (/^frozen (\d)$/m.exec(events)?.[1] === wanted) return;
    if (signal.aborted) throw signal.reason;
    await sleep(round < 20 ? 1 : 10);
  }
}

/** Thaws a sandbox's freezer if it has one, ignoring one already gone: `destroy`'s first step. */
export async function thawQuietly(cgroups: SandboxCgroups | undefined): Promise<void> {
  const freezer = cgroups?.freezer;
  if (!freezer) return;
  await setFrozen(freezer.directory, false, AbortSignal.timeout(THAW_WAIT_MS)).catch(() => {
    // Gone already, or not thawed in time: SIGKILL, the next step, reaches frozen processes too.
  });
}

/** How long `destroy` waits for a stopped sandbox to thaw before killing it regardless. */
const THAW_WAIT_MS = 2_000;
