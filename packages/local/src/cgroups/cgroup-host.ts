import { randomBytes } from "node:crypto";
import { access, mkdir, readFile, rmdir } from "node:fs/promises";
import { join } from "node:path";

/** A resource controller Sandport can use to enforce `LaunchSpec.resources`. */
export type LimitController = "memory" | "pids" | "cpu";

/** One place where this process may create child cgroups. */
export interface CgroupParent {
  /** 1 for a legacy per-controller hierarchy, 2 for the unified hierarchy. */
  readonly version: 1 | 2;
  /** Absolute directory of this process's own cgroup in that hierarchy. */
  readonly directory: string;
}

/** The cgroup hierarchies this process can create children in, as probed. */
export interface CgroupHost {
  /** Unified (v2) hierarchy, when mounted and writable. */
  readonly unified?: CgroupParent & {
    /** Controllers listed in our cgroup's `cgroup.controllers`. */
    readonly controllers: readonly string[];
    /** Whether a child cgroup has `cgroup.kill` (Linux 5.14+). */
    readonly canKill: boolean;
  };
  /** Writable legacy (v1) hierarchies by controller name (`memory`, `pids`, `cpu`, `freezer`). */
  readonly legacy: Readonly<Record<string, CgroupParent>>;
}

/** One cgroup mount from `/proc/self/mountinfo`. */
export interface Mount {
  readonly mountPoint: string;
  readonly root: string;
  readonly type: string;
  readonly superOptions: readonly string[];
}

let probed: Promise<CgroupHost> | undefined;

/**
 * Finds the cgroup hierarchies this process may create children in: parses
 * `/proc/self/mountinfo` and `/proc/self/cgroup`, then proves each candidate
 * writable by creating and removing a probe cgroup beneath our own. Children are
 * always nested under the caller's own cgroup, never at a hierarchy's root, so
 * the caller's own limits keep applying. Probed once per process.
 */
export function probeCgroupHost(): Promise<CgroupHost> {
  probed ??= detect().catch(() => ({ legacy: {} }));
  return probed;
}

async function detect(): Promise<CgroupHost> {
  if (process.platform !== "linux") return { legacy: {} };
  const [mountinfo, membership] = await Promise.all([
    readFile("/proc/self/mountinfo", "utf8"),
    readFile("/proc/self/cgroup", "utf8"),
  ]);
  const mounts = mountinfo
    .split("\n")
    .map(parseMount)
    .filter((mount) => mount !== undefined);
  const legacy: Record<string, CgroupParent> = {};
  let unified: CgroupHost["unified"];
  for (const line of membership.split("\n")) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const [, hierarchy, controllerList, path] = match as unknown as [string, string, string, string];
    if (hierarchy === "0" && controllerList === "") {
      const mount = mounts.find((candidate) => candidate.type === "cgroup2");
      const directory = mount && ownDirectory(mount, path);
      if (!directory || !(await isWritable(directory))) continue;
      const controllers = (await readFile(join(directory, "cgroup.controllers"), "utf8").catch(() => ""))
        .split(/\s+/)
        .filter(Boolean);
      unified = { version: 2, directory, controllers, canKill: await hasKillFile(directory) };
      continue;
    }
    for (const controller of controllerList.split(",")) {
      if (!["memory", "pids", "cpu", "freezer"].includes(controller)) continue;
      const mount = mounts.find(
        (candidate) => candidate.type === "cgroup" && candidate.superOptions.includes(controller),
      );
      const directory = mount && ownDirectory(mount, path);
      if (directory && (await isWritable(directory))) legacy[controller] = { version: 1, directory };
    }
  }
  return unified ? { unified, legacy } : { legacy };
}

/** Parses one line of `/proc/self/mountinfo`; `undefined` unless it is a cgroup (v1 or v2) mount. */
export function parseMount(line: string): Mount | undefined {
  const [left, right] = line.split(" - ");
  if (!left || !right) return undefined;
  const fields = left.split(" ");
  const [type, , superOptions = ""] = right.split(" ");
  if (type !== "cgroup" && type !== "cgroup2") return undefined;
  return {
    mountPoint: decodeMountField(fields[4] ?? ""),
    root: decodeMountField(fields[3] ?? ""),
    type,
    superOptions: superOptions.split(","),
  };
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function decodeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** Where `path` (a cgroup path from `/proc/self/cgroup`) is under `mount`, or `undefined` when outside it. */
export function ownDirectory(mount: Mount, path: string): string | undefined {
  if (mount.root !== "/" && path !== mount.root && !path.startsWith(`${mount.root}/`)) return undefined;
  const relative = mount.root === "/" ? path : path.slice(mount.root.length);
  return join(mount.mountPoint, relative);
}

async function isWritable(directory: string): Promise<boolean> {
  const probe = join(directory, `sandport-probe-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    await mkdir(probe);
  } catch {
    return false;
  }
  await rmdir(probe).catch(() => {});
  return true;
}

async function hasKillFile(directory: string): Promise<boolean> {
  const probe = join(directory, `sandport-probe-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    await mkdir(probe);
    await access(join(probe, "cgroup.kill"));
    return true;
  } catch {
    return false;
  } finally {
    await rmdir(probe).catch(() => {});
  }
}
