import { appendFile, readdir, readFile, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { failureReason, type Leftover } from "../store/leftover-report.js";
import { abandonedBy } from "../store/staging-name.js";
import { type CgroupHost, parseMount } from "./cgroup-host.js";
import { parseSandboxCgroupName, rootTag } from "./cgroup-name.js";
import { membersOf } from "./cgroups.js";

/**
 * The file in a sandbox root listing, a line each, the cgroups sandboxes of
 * that root were made under (the launching processes' own cgroups), so that a
 * runtime in another cgroup (a `sandport sweep` from a shell, a service moved
 * to another unit) still finds their leftovers.
 */
export const CGROUP_PARENTS_FILE = ".cgroup-parents";

/** `<root>\0<parent>` pairs this process has noted already. */
const noted = new Set<string>();

/** The directories under which this process makes sandbox cgroups. */
function hostParents(host: CgroupHost): string[] {
  const parents = [host.unified?.directory, ...Object.values(host.legacy).map((parent) => parent.directory)];
  return unique(parents.filter((parent) => parent !== undefined));
}

/**
 * Notes this process's cgroup parents in `<root>/`{@link CGROUP_PARENTS_FILE}
 * (once per process and root, before its first sandbox cgroup is made there).
 * Best effort: a parent not noted is still found by a runtime in the same
 * cgroup, which scans its own parents.
 */
export async function noteCgroupParents(root: string, host: CgroupHost): Promise<void> {
  const fresh = hostParents(host).filter((parent) => !noted.has(`${root}\0${parent}`));
  if (fresh.length === 0) return;
  const file = join(root, CGROUP_PARENTS_FILE);
  try {
    const known = (await readFile(file, "utf8").catch(() => "")).split("\n");
    const missing = fresh.filter((parent) => !known.includes(parent));
    if (missing.length > 0) await appendFile(file, missing.map((parent) => `${parent}\n`).join(""), { mode: 0o600 });
    for (const parent of fresh) noted.add(`${root}\0${parent}`);
  } catch {
    // Not noted: the next launch tries again.
  }
}

/** What {@link reclaimCgroups} works from. */
export interface CgroupReclaim {
  /** The sandbox root, as the runtime names it. */
  readonly root: string;
  readonly owner: string;
  /** This process's cgroup hierarchies. */
  readonly host: CgroupHost;
  /** Whether the root holds anything under sandbox id `id` (a live sandbox, or a directory in the way). */
  readonly holds: (id: string) => Promise<boolean>;
}

/**
 * Removes the sandbox cgroups of this root and owner that nothing will use:
 * named for them ({@link rootTag}), under this process's own cgroups or a
 * parent noted in the root, made by a launch that is over (its process gone,
 * or this process no longer launching that id), of a sandbox the root does
 * not hold, and with no process in them. One with processes is reported and
 * left; a cgroup of any other form (another root's or owner's, an older
 * version's `sandport-<id>`, a live sandbox's) is never touched.
 */
export async function reclaimCgroups(input: CgroupReclaim): Promise<Leftover[]> {
  const tag = rootTag(input.root, input.owner);
  const parents = unique([...hostParents(input.host), ...(await notedParents(input.root))]);
  const leftovers: Leftover[] = [];
  for (const parent of parents) {
    const names = await readdir(parent).catch(() => [] as string[]);
    for (const name of names) {
      const parsed = parseSandboxCgroupName(name);
      if (parsed?.tag !== tag || !abandonedBy(parsed.creator, parsed.id)) continue;
      if (await input.holds(parsed.id)) continue;
      leftovers.push(await reclaimCgroup(join(parent, name)));
    }
  }
  return leftovers;
}

/** Removes an orphan cgroup tree, bottom-up with `rmdir` only, unless a process is in it. */
async function reclaimCgroup(path: string): Promise<Leftover> {
  const members = await membersOf(path);
  if (members.length > 0) {
    return { kind: "cgroup", path, reclaimed: false, reason: `processes ${members.slice(0, 8).join(", ")} are in it` };
  }
  try {
    await removeEmptyTree(path);
    return { kind: "cgroup", path, reclaimed: true };
  } catch (error) {
    return { kind: "cgroup", path, reclaimed: false, reason: failureReason(error) };
  }
}

async function removeEmptyTree(directory: string): Promise<void> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) if (entry.isDirectory()) await removeEmptyTree(join(directory, entry.name));
  await rmdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/** The parents noted in the root that lie under a cgroup mount of this process (anything else is ignored). */
async function notedParents(root: string): Promise<string[]> {
  const text = await readFile(join(root, CGROUP_PARENTS_FILE), "utf8").catch(() => "");
  if (text === "") return [];
  const mountinfo = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  const mountPoints = mountinfo
    .split("\n")
    .map(parseMount)
    .filter((mount) => mount !== undefined)
    .map((mount) => mount.mountPoint);
  return text
    .split("\n")
    .filter(
      (line) =>
        line.startsWith("/") &&
        !line.split("/").includes("..") &&
        mountPoints.some((mountPoint) => line === mountPoint || line.startsWith(`${mountPoint}/`)),
    );
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
