// Finds host cgroups that a test run left behind. The local runtime makes `sandport-<sandbox id>.<pid>.<start>.<root tag>`
// under its process's own cgroup in each hierarchy it uses, with `exec-<pid>-<n>` leaves for the
// commands of runtime process <pid>; destroy removes them. A failed test that skipped its teardown
// leaves them, so scripts/run-tests.mjs lists what appeared during the run and is still there.
import { readdirSync, readFileSync, rmdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The directories of this process's own cgroups, one per mounted hierarchy (v1 and v2). */
export function ownCgroupDirectories() {
  const mounts = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => {
      const [before, after] = line.split(" - ");
      if (!before || !after) return undefined;
      const fields = before.split(" ");
      const [type, , superOptions = ""] = after.split(" ");
      return { root: fields[3], mountPoint: fields[4], type, options: superOptions.split(",") };
    })
    .filter((mount) => mount && (mount.type === "cgroup" || mount.type === "cgroup2"));
  const directories = new Set();
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const [, hierarchy, controllers, path] = match;
    const mount =
      hierarchy === "0" && controllers === ""
        ? mounts.find((candidate) => candidate.type === "cgroup2")
        : mounts.find(
            (candidate) =>
              candidate.type === "cgroup" && controllers.split(",").some((name) => candidate.options.includes(name)),
          );
    if (!mount || !path.startsWith(mount.root)) continue;
    directories.add(join(mount.mountPoint, path.slice(mount.root.length)));
  }
  return [...directories];
}

/** Every `sandport-*` cgroup directly under one of this process's own cgroups. */
export function sandportCgroups() {
  const found = new Set();
  for (const directory of ownCgroupDirectories()) {
    let entries = [];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && entry.name.startsWith("sandport-")) found.add(join(directory, entry.name));
    }
  }
  return found;
}

/** The directories under `directory` (itself included), deepest first. */
function subtree(directory) {
  const below = [];
  try {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.isDirectory()) below.push(...subtree(join(directory, entry.name)));
    }
  } catch {
    // Removed while we looked.
  }
  return [...below, directory];
}

/** The pids named by the `exec-<pid>-<n>` leaves under a sandbox's cgroup. */
export function leafPids(directory) {
  return subtree(directory)
    .map((path) => /\/exec-(\d+)-\d+$/.exec(path)?.[1])
    .filter(Boolean)
    .map(Number);
}

/** Removes a leftover cgroup and its leaves where they hold no process (rmdir refuses otherwise). */
export function removeCgroup(directory) {
  for (const path of subtree(directory)) {
    try {
      if (statSync(path).isDirectory()) rmdirSync(path);
    } catch {
      // Still has a process, or already gone: it stays listed.
    }
  }
}

/** The test file a process runs (`node --test` gives each file a process of its own), or undefined. */
function testFileOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .find((arg) => arg.endsWith(".test.ts"));
  } catch {
    return undefined;
  }
}

/**
 * Watches the process tree under `rootPid` (polling /proc) and remembers every pid seen in it,
 * so that a leftover cgroup's leaves can be traced to this run rather than a concurrent one. It also
 * notes, for each `sandport-*` cgroup that appears, which test files were running at that moment
 * (`origins`): a sandbox's cgroup has no leaf naming a process under namespaces, so this is what
 * tells which test left it.
 */
export function watchDescendants(rootPid, intervalMs = 200) {
  const seen = new Set();
  const files = new Map();
  const known = sandportCgroups();
  const origins = new Map();
  const sample = () => {
    const parents = new Map();
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {
        // Exited while we looked.
      }
    }
    const running = new Set();
    for (const [pid] of parents) {
      for (let at = pid, hops = 0; at > 1 && hops < 64; at = parents.get(at) ?? 0, hops += 1) {
        if (at === rootPid || seen.has(at)) {
          if (!seen.has(pid)) files.set(pid, testFileOf(pid));
          seen.add(pid);
          if (files.get(pid)) running.add(files.get(pid));
          break;
        }
      }
    }
    for (const directory of sandportCgroups()) {
      if (!known.has(directory) && !origins.has(directory)) origins.set(directory, running);
    }
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    seen,
    origins,
    stop() {
      clearInterval(timer);
      sample();
    },
  };
}
