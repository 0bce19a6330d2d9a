import { spawn } from "node:child_process";
import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { WORKSPACE_TMP } from "../store/sandbox-layout.js";
import { bridgedSpawn, dropTo, type RootBridge } from "./root-bridge.js";
import { FILTER_DESCRIPTOR, syscallFilter } from "./syscall-filter.js";

/**
 * `/etc` entries visible (read-only) inside the sandbox: enough for users and
 * groups, name resolution, TLS roots, the dynamic linker and Debian's
 * alternatives. Everything else in `/etc` is absent. Missing entries are skipped.
 */
export const ETC_ENTRIES = [
  "alternatives",
  "ca-certificates",
  "ca-certificates.conf",
  "gai.conf",
  "group",
  "host.conf",
  "hosts",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "mime.types",
  "nsswitch.conf",
  "os-release",
  "passwd",
  "protocols",
  "resolv.conf",
  "services",
  "ssl",
  "timezone",
] as const;

/** Top-level directories that merged-/usr systems make symlinks into `/usr` and older systems keep as directories. */
const USR_SIBLINGS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] as const;

/**
 * What a sandbox may write under its fresh `/proc`: the entries of its own
 * processes (`/proc/<pid>/…`, reached also through these links, e.g.
 * `/proc/self/oom_score_adj` or `/proc/self/comm`), which are per process.
 * Every other top-level entry is host-global (sysctls, where
 * `kernel.core_pattern` runs a program as host root; the SysRq trigger; IRQ,
 * bus and filesystem settings; `/proc/pressure/*`, mode 0666, whose writes
 * register host-wide PSI triggers) and is mounted read-only over it: an allow
 * list, so that an entry a newer kernel adds is read-only too.
 */
export const WRITABLE_PROC_ENTRIES = ["self", "thread-self"] as const;

let readOnlyProc: string[] | undefined;

/**
 * The top-level `/proc` entries to mount read-only: every one but the
 * per-process directories and {@link WRITABLE_PROC_ENTRIES}, among those a
 * write could reach (directories, and files with a write permission bit; a
 * file without one has no write handler, and symbolic links lead into a
 * process's directory). Listed once, from this process's `/proc`: the same
 * kernel shows the same entries in the sandbox's. A kernel without an entry
 * (SysRq) simply does not list it.
 */
export function readOnlyProcEntries(): readonly string[] {
  // Names only: with types, Node may lstat every entry, and a process directory can vanish between the
  // listing and its lstat (ENOENT). The per-process entries are skipped by name before anything is looked at.
  readOnlyProc ??= readdirSync("/proc").flatMap((name) => {
    if (/^\d+$/.test(name) || (WRITABLE_PROC_ENTRIES as readonly string[]).includes(name)) return [];
    try {
      const stats = lstatSync(`/proc/${name}`);
      if (stats.isDirectory()) return [name];
      return stats.isFile() && (stats.mode & 0o222) !== 0 ? [name] : [];
    } catch {
      return [];
    }
  });
  return readOnlyProc;
}

/** Who bubblewrap runs as: the sandbox user under a root runtime (see `LocalRuntimeOptions.sandboxUser`), else the runtime's own user. */
export interface BwrapUser {
  readonly uid: number;
  readonly gid: number;
}

/** Everything needed to build one bubblewrap invocation. */
export interface BwrapInput {
  /** Host directory bind-mounted read-write at `workspaceRoot`. */
  readonly workspaceDirectory: string;
  /** Where the workspace appears inside, e.g. `/workspace`. */
  readonly workspaceRoot: string;
  /** Working directory inside, absolute. */
  readonly cwd: string;
  /** Keep the host's network namespace (`--share-net`). */
  readonly network: boolean;
  /** Extra host paths mounted read-only at the same place. */
  readonly readOnlyPaths: readonly string[];
  /** The environment, set inside after `--clearenv`. */
  readonly env: Readonly<Record<string, string>>;
  /** Program and arguments to run inside. */
  readonly command: readonly string[];
  /** Host paths mounted read-only at other places inside (`[host, inside]`), e.g. the port relay. */
  readonly mounts?: readonly (readonly [string, string])[];
  /**
   * Join a sandbox's namespaces instead of creating a command's own: its user
   * namespace from descriptor 4 and PID namespace from descriptor 5 (the
   * caller enters its IPC, UTS and network namespaces before bubblewrap
   * starts, with `nsenter`). `network` is then ignored.
   */
  readonly shared?: boolean;
  /**
   * Load the syscall filter (see `syscall-filter.ts`) from descriptor
   * `FILTER_DESCRIPTOR` (`--seccomp`), which the spawner fills.
   */
  readonly syscallFilter?: boolean;
}

/** A bubblewrap invocation: its arguments, plus the NUL-separated arguments it reads from fd 3. */
export interface BwrapInvocation {
  readonly args: string[];
  /**
   * `--setenv` pairs, passed through `--args 3` rather than on the command line,
   * so that secrets in the environment never show in `/proc/<pid>/cmdline` or `ps`.
   */
  readonly fd3: Buffer;
}

/**
 * Builds the bubblewrap arguments: fresh user, PID, IPC, UTS, cgroup and
 * (unless `network`) network namespaces; no nested user namespaces; all
 * capabilities dropped (essential when running as root); a new session; death
 * with the parent; a cleared environment. The filesystem is an allow-list:
 * read-only `/usr` (with its merged-/usr symlinks), the curated `/etc` entries
 * and `readOnlyPaths`, a fresh `/proc` read-only but for the entries of the
 * sandbox's own processes ({@link WRITABLE_PROC_ENTRIES}), a fresh `/dev`, the workspace read-write,
 * the workspace's `.tmp` bound at `/tmp`, and everything else (the root and
 * `/dev`) remounted read-only.
 */
export function buildBwrapInvocation(input: BwrapInput): BwrapInvocation {
  const args = input.shared ? sharedIsolationArgs() : isolationArgs(input.network);
  args.push("--args", "3");
  if (input.syscallFilter) args.push("--seccomp", String(FILTER_DESCRIPTOR));
  for (const path of input.readOnlyPaths) args.push("--ro-bind-try", path, path);
  for (const [host, inside] of input.mounts ?? []) args.push("--ro-bind", host, inside);
  args.push("--bind", input.workspaceDirectory, input.workspaceRoot);
  // A directory of its own, as on a provider's machine: a path through /tmp leads outside the workspace, as the
  // runtime's file operations see it from the host, and a command started in /tmp (`cwd`) finds itself there, not in
  // the workspace (`getcwd`). Its contents are the workspace's `.tmp`, shared by every command of the sandbox.
  args.push("--bind-try", `${input.workspaceDirectory}/${WORKSPACE_TMP}`, "/tmp");
  args.push("--remount-ro", "/dev", "--remount-ro", "/");
  args.push("--chdir", input.cwd, "--", ...input.command);
  const pairs = Object.entries(input.env).flatMap(([name, value]) => ["--setenv", name, value]);
  return { args, fd3: Buffer.from(pairs.map((part) => `${part}\u0000`).join(""), "utf8") };
}

/** The namespace, capability, environment and base filesystem arguments every invocation (and the probe) shares. */
function isolationArgs(network: boolean): string[] {
  const args = ["--unshare-all"];
  if (network) args.push("--share-net");
  args.push("--unshare-user", "--disable-userns");
  return withBaseArgs(args);
}

/**
 * The same, for a command that joins its sandbox's namespaces: the user
 * namespace (whose nested user namespaces are disabled, which bubblewrap
 * asserts) and the PID namespace from descriptors 4 and 5; a cgroup and a
 * mount namespace of its own.
 */
function sharedIsolationArgs(): string[] {
  const args = ["--userns", "4", "--pidns", "5", "--unshare-cgroup", "--assert-userns-disabled"];
  return withBaseArgs(args);
}

function withBaseArgs(args: string[]): string[] {
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL");
  args.push("--clearenv", "--ro-bind", "/usr", "/usr");
  for (const [kind, source, target] of usrSiblings()) args.push(kind, source, target);
  for (const entry of ETC_ENTRIES) args.push("--ro-bind-try", `/etc/${entry}`, `/etc/${entry}`);
  args.push("--proc", "/proc");
  for (const entry of readOnlyProcEntries()) args.push("--ro-bind-try", `/proc/${entry}`, `/proc/${entry}`);
  args.push("--dev", "/dev");
  return args;
}

let siblings: [string, string, string][] | undefined;

/** How to recreate `/bin`, `/lib`, ... inside: as the same symlinks, or as read-only binds. Looked up once. */
function usrSiblings(): [string, string, string][] {
  siblings ??= USR_SIBLINGS.flatMap((path): [string, string, string][] => {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) return [["--symlink", readlinkSync(path), path]];
      if (stat.isDirectory()) return [["--ro-bind", path, path]];
    } catch {
      // Absent on this system.
    }
    return [];
  });
  return siblings;
}

/** Outcome of probing whether bubblewrap can create the namespaces it needs here. */
export type BwrapProbe = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** What one probe checks: the binary, the user it runs as, and the paths that user must reach. */
export interface BwrapProbeInput {
  readonly bwrapPath: string;
  /** The sandbox user, when commands run as one (the runtime is root). */
  readonly user?: BwrapUser;
  /**
   * A directory in the sandbox root with nothing mounted under it (`SandboxStore.probeDirectory`), bound as
   * commands bind a workspace (through `rootBridge` when `user` cannot pass through a parent).
   */
  readonly root?: string;
  /** Extra read-only paths, which `user` must be able to reach. */
  readonly readOnlyPaths?: readonly string[];
  /** Load the syscall filter too, as commands do: a kernel without seccomp filters fails the probe, not every command. */
  readonly syscallFilter?: boolean;
  /** With `user`: reach the root as commands then do, through a mount namespace of its own (see `bridgedSpawn`). */
  readonly rootBridge?: RootBridge;
}

const probes = new Map<string, Promise<BwrapProbe>>();

/**
 * Runs bubblewrap once with the same namespace, capability and mount flags as
 * real commands, as the same user, binding the sandbox root (reached the way
 * commands reach it: through `rootBridge` when that user cannot pass through
 * one of its parents) and the extra read-only paths (about 5-20 ms), to learn
 * whether isolation works here for that user. Cached per input for the life of the process.
 */
export function probeBwrap(input: BwrapProbeInput | string): Promise<BwrapProbe> {
  const normalized = typeof input === "string" ? { bwrapPath: input } : input;
  const key = JSON.stringify([
    normalized.bwrapPath,
    normalized.user,
    normalized.root,
    normalized.readOnlyPaths,
    normalized.syscallFilter,
    normalized.rootBridge,
  ]);
  let probe = probes.get(key);
  if (!probe) {
    probe = runProbe(normalized);
    probes.set(key, probe);
  }
  return probe;
}

function runProbe(input: BwrapProbeInput): Promise<BwrapProbe> {
  if (process.platform !== "linux") return Promise.resolve({ ok: false, reason: "namespaces need Linux" });
  const { bwrapPath, user } = input;
  const args = isolationArgs(false);
  for (const path of input.readOnlyPaths ?? []) args.push("--ro-bind-try", path, path);
  if (input.root) args.push("--ro-bind", input.root, "/sandport-root");
  if (input.syscallFilter) args.push("--seccomp", String(FILTER_DESCRIPTOR));
  args.push("--remount-ro", "/", "--", "/usr/bin/true");
  const stdio: ("ignore" | "pipe")[] = ["ignore", "ignore", "pipe"];
  if (input.syscallFilter) {
    while (stdio.length < FILTER_DESCRIPTOR) stdio.push("ignore");
    stdio.push("pipe");
  }
  const as = user ? ` as uid ${user.uid}` : "";
  return new Promise((resolve) => {
    let stderr = "";
    const drop = user ? dropTo(user) : [];
    const bridged = user && input.rootBridge;
    const spawned = bridged
      ? bridgedSpawn(input.rootBridge as RootBridge, [], "", 125, [...drop, bwrapPath, ...args])
      : { file: bwrapPath, args };
    const child = spawn(spawned.file, spawned.args, {
      stdio,
      env: {},
      ...(user && !bridged ? { uid: user.uid, gid: user.gid } : {}),
    });
    const filter = (child.stdio as readonly unknown[])[FILTER_DESCRIPTOR] as NodeJS.WritableStream | undefined;
    if (filter) {
      filter.on("error", () => {});
      filter.end(syscallFilter());
    }
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", (error) => resolve({ ok: false, reason: `cannot run ${bwrapPath}${as}: ${error.message}` }));
    child.on("close", (code, signal) => {
      if (code === 0) resolve({ ok: true });
      else resolve({ ok: false, reason: `${bwrapPath}${as} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}` });
    });
  });
}
