import { userInfo } from "node:os";
import { isAbsolute, join, posix } from "node:path";
import { keyList, type OperationTimeouts, type ResourceLimits } from "@sandport/core";
import {
  COMMON_RUNTIME_OPTION_SHAPE,
  type CommonRuntimeOptions,
  OptionReader,
  type ResolvedCommonOptions,
} from "@sandport/core/adapter";
import { type LocalDefaultResources, resolveDefaultResources } from "./default-resources.js";
import type { EgressRefusedEvent } from "./egress/egress-proxy.js";
import type { EgressResolver } from "./egress/egress-rules.js";
import { checkReadOnlyPath } from "./read-only-paths.js";

/** The provider name `LocalRuntime` reports and stamps on its handles. */
export const LOCAL_PROVIDER = "local";

/** Where the workspace appears inside an isolated sandbox; also the root of request paths in both modes. */
export const LOCAL_WORKSPACE_ROOT = "/workspace";

/** How commands are separated from the host. */
export type LocalIsolation = "namespaces" | "none";

/** Whether each command gets namespaces of its own, or joins its sandbox's (see `LocalRuntimeOptions.namespaceScope`). */
export type NamespaceScope = "command" | "sandbox";

/** Whether the runtime may use Linux control groups. */
export type CgroupUsage = "auto" | "disabled";

/**
 * Options for `LocalRuntime`. Every field is optional; nothing is read from
 * the environment. From the options every runtime shares: `owner` (default
 * `"sandport"`; sandboxes under `root` with another owner are foreign),
 * `runBudgetMs` (default 600 000, 10 minutes), `maxOutputBytes` (default 16
 * MiB) and `timeouts` (see {@link DEFAULT_LOCAL_TIMEOUTS}).
 */
export interface LocalRuntimeOptions extends CommonRuntimeOptions {
  /**
   * Absolute directory that holds one sub-directory per sandbox (created on
   * first launch with any missing parents, mode `0700`; `0711` when commands
   * run as {@link sandboxUser}, who must pass through them). Default: `~/.cache/sandport/local`, where `~`
   * is the current user's home directory from the password database (not
   * `$HOME`); for root, `/var/lib/sandport/local` (root's home is usually
   * closed to the sandbox user). See {@link defaultRoot}. Two runtimes with
   * the same `root` and `owner` see the same sandboxes.
   */
  readonly root?: string;
  /**
   * `namespaces` (default): every command runs under bubblewrap in fresh Linux
   * namespaces; when bubblewrap or user namespaces are unavailable, `launch` and
   * `exec` refuse with `UNSUPPORTED` instead of running unisolated.
   * `none`: commands are plain host processes in the workspace directory; an
   * explicit opt-in, reported in every result. Never chosen automatically.
   * Their environment gets one variable Sandport adds besides `PATH`, `HOME`
   * and `TMPDIR`: `SANDPORT_LOCAL_COMMAND_ID`, a per-command marker by which processes
   * that left the command's process group and cgroup are found and killed.
   */
  readonly isolation?: LocalIsolation;
  /**
   * Milliseconds between SIGTERM and SIGKILL when a command is stopped (timeout,
   * abort, output cap, destroy). Default: 250.
   */
  readonly killGraceMs?: number;
  /** Absolute path of the bubblewrap binary. Default: `/usr/bin/bwrap`. */
  readonly bwrapPath?: string;
  /**
   * Extra absolute host paths mounted read-only at the same place inside the
   * sandbox (under `namespaces`), e.g. `["/opt/toolchain"]`. Missing paths are
   * skipped. Default: none; only `/usr` and a curated list of `/etc` entries are visible.
   * Refused (`INVALID_REQUEST`): `/`, and entries at, under or above `/tmp`, the
   * workspace root, `/run` or `/var/run`. A Unix socket inside an entry stays
   * connectable: a read-only mount does not stop `connect()`.
   */
  readonly readOnlyPaths?: readonly string[];
  /**
   * `auto` (default): use a writable cgroup hierarchy, where one exists, to
   * enforce `LaunchSpec.resources`, (under `isolation: "none"`) to kill
   * processes that left the command's process group, and, where the cgroup v2
   * freezer is writable, to `stop` and `start` sandboxes. `disabled`: never touch
   * cgroups; resource limits are then refused with `UNSUPPORTED` (and the
   * `defaultResources` they enforce are not applied), the runtime
   * has no `stop`/`start` (`lifecycle: "unsupported"`), and under
   * `none` a command's process group and the processes carrying its
   * `SANDPORT_LOCAL_COMMAND_ID` are killed (a process that left the group and
   * cleared its environment survives).
   */
  readonly cgroups?: CgroupUsage;
  /**
   * The unprivileged host user (numeric `uid` and `gid`) that isolated
   * commands run as when this process runs as root, so that nothing in the
   * kernel that checks for "host root" ever sees root from a sandbox. That
   * user owns each workspace (mode `0700`) and must be able to pass through
   * `root`'s parents. Ignored when the process is not root (commands then run
   * as the process's own user) and under `isolation: "none"` (commands run as
   * the process's own user, root included: no confinement). A user of its
   * own, used by nothing else on the host, is best. Default:
   * `{ uid: 65534, gid: 65534 }` (`nobody` / `nogroup` on Debian).
   */
  readonly sandboxUser?: SandboxUser;
  /**
   * Where the workspace appears inside an isolated sandbox (and the root of
   * every request path, in both modes), e.g. `"/home/user"` to look like a
   * provider's machine. Absolute and normalized; not `/`, and not in or under
   * a directory the sandbox's own filesystem needs (`/proc`, `/sys`, `/dev`,
   * `/usr`, `/etc`, `/tmp`, `/bin`, `/sbin`, `/lib*`, `/run`). Default: `/workspace`.
   */
  readonly workspaceRoot?: string;
  /**
   * Under `isolation: "namespaces"`: `"command"` (default) gives every
   * command PID, network, IPC and UTS namespaces of its own. `"sandbox"` gives
   * each sandbox one set, made at launch and kept by a holder process (the
   * init of its PID namespace) until `destroy`, which every command of the
   * sandbox joins: they see each other's processes and share one loopback
   * (a server one command starts on `127.0.0.1` is reachable from the next
   * command, not from another sandbox or the host, unless the sandbox has
   * network), as on a provider's machine; `destroy` kills the holder, and
   * every process in the sandbox dies with it. Needs a root runtime (joining a
   * network namespace needs privileges in the runtime's own user namespace)
   * and util-linux's `nsenter` and `unshare`: refused with `INVALID_REQUEST`
   * otherwise, or under `isolation: "none"`. Never chosen automatically.
   */
  readonly namespaceScope?: NamespaceScope;
  /**
   * Under `isolation: "namespaces"`: run every command under a seccomp
   * filter (bubblewrap's `--seccomp`) that refuses system calls a sandboxed
   * command has no use for and that kernel escapes go through: io_uring
   * (`ENOSYS`), `bpf`, `perf_event_open`, `userfaultfd`, the keyring calls,
   * `ptrace`, `process_vm_readv`/`writev`, `kexec_*`, the new mount API
   * (`ENOSYS`), the terminal-injection ioctls `TIOCSTI` and `TIOCLINUX`,
   * `socket(AF_VSOCK)` and the x32 ABI (`EPERM` unless noted); a 32-bit
   * (i386, arm32) syscall kills the process. Default: `true`. `false` only
   * to measure what the filter costs or to debug a program it breaks.
   */
  readonly syscallFilter?: boolean;
  /**
   * Told of every connection a sandbox's egress proxy refused (a launch with
   * `network: { allow: [...] }`): the sandbox, the host and port asked for,
   * the addresses it resolved to, and why. A throwing listener changes
   * nothing. Default: none.
   */
  readonly onEgressRefused?: (event: EgressRefusedEvent) => void;
  /**
   * How the egress proxy resolves a host name to addresses. Default: the
   * system resolver (`dns.lookup`, every address). For tests, to map names to
   * local servers; the addresses given are checked as any others (loopback
   * only through a CIDR entry).
   */
  readonly egressResolver?: EgressResolver;
  /**
   * Under `isolation: "namespaces"`: a launch with `network: "all"` (or
   * `true`) shares the host's network namespace, as before this option
   * existed. It gives up what `"all"` otherwise keeps: the sandbox then
   * reaches the host's own loopback services (databases, admin ports, this
   * runtime's own servers), the private networks and the cloud metadata
   * service the host reaches, speaks any protocol (raw TCP, UDP, DNS) to
   * anyone, and its servers listen on the host's own ports (reachable on any
   * port without declaring it). Default `false`: `"all"` is a network
   * namespace of its own whose only way out is the egress proxy, to public
   * addresses. Allow lists and `"none"` are unchanged by it.
   */
  readonly hostNetwork?: boolean;
  /**
   * The limits a launch gets for each field of `LaunchSpec.resources` it
   * leaves unset, so that no sandbox is unbounded by omission. Default: 512
   * processes, 2 GiB of memory and a 4 GiB workspace, no CPU quota (see
   * `DEFAULT_RESOURCES`). A field given replaces its built-in value, `false`
   * drops it (`{ diskMiB: false }`); `defaultResources: false` applies none.
   * A launch's own value for a field always wins. A default is applied only
   * where this runtime can enforce it (the same checks as an explicit limit:
   * `memoryLimit`, `processLimit`, `cpuLimit`, `diskLimit`), and a disk
   * default only while the host file system under the root has room for the
   * whole bound; elsewhere it is left out, never a reason to refuse the
   * launch. The handle's `resources` say which limits a sandbox has, and
   * `LocalRuntime.defaultResources` which defaults apply and why any do not.
   */
  readonly defaultResources?: LocalDefaultResources | false;
}

/** Every option `LocalRuntime` takes; any other is refused, naming the nearest known one. */
export const LOCAL_OPTION_KEYS = keyList<LocalRuntimeOptions>({
  ...COMMON_RUNTIME_OPTION_SHAPE,
  root: true,
  isolation: true,
  killGraceMs: true,
  bwrapPath: true,
  readOnlyPaths: true,
  cgroups: true,
  sandboxUser: true,
  workspaceRoot: true,
  namespaceScope: true,
  syscallFilter: true,
  onEgressRefused: true,
  egressResolver: true,
  hostNetwork: true,
  defaultResources: true,
});

/** A host user by number. */
export interface SandboxUser {
  readonly uid: number;
  readonly gid: number;
}

/** Options after validation, with every default applied. */
export interface ResolvedLocalOptions extends ResolvedCommonOptions {
  /** Absolute sandbox root, or `undefined` to use the per-user default (resolved lazily). */
  readonly root: string | undefined;
  readonly isolation: LocalIsolation;
  readonly killGraceMs: number;
  readonly bwrapPath: string;
  readonly readOnlyPaths: readonly string[];
  readonly cgroups: CgroupUsage;
  /** Who isolated commands run as: set only when this process is root and isolation is `namespaces`. */
  readonly sandboxUser: SandboxUser | undefined;
  readonly workspaceRoot: string;
  readonly namespaceScope: NamespaceScope;
  /** Commands run under the syscall filter: `isolation` is `namespaces` and the option was not `false`. */
  readonly syscallFilter: boolean;
  readonly onEgressRefused: ((event: EgressRefusedEvent) => void) | undefined;
  readonly egressResolver: EgressResolver | undefined;
  /** `network: "all"` shares the host's network namespace (see `LocalRuntimeOptions.hostNetwork`). */
  readonly hostNetwork: boolean;
  /** The default limits asked for (before what this process can enforce is known); empty when off. */
  readonly defaultResources: Readonly<ResourceLimits>;
}

/**
 * Default per-call deadlines, in ms: launch 60 s, lookups 60 s, file
 * operations 120 s, destroy 60 s, stop and start 60 s (`lifecycleMs`); an exec call's deadline is its run budget
 * plus `killGraceMs` plus `execGraceMs` (30 s), so the command's own timeout
 * always fires first.
 */
export const DEFAULT_LOCAL_TIMEOUTS: OperationTimeouts = Object.freeze({
  launchMs: 60_000,
  lookupMs: 60_000,
  fileMs: 120_000,
  destroyMs: 60_000,
  lifecycleMs: 60_000,
  execGraceMs: 30_000,
});
/** Default SIGTERM → SIGKILL grace, in ms. */
const DEFAULT_KILL_GRACE_MS = 250;
/** Default bubblewrap binary. */
export const DEFAULT_BWRAP_PATH = "/usr/bin/bwrap";
/** Default user isolated commands run as when the runtime is root: `nobody` / `nogroup` on Debian. */
export const DEFAULT_SANDBOX_USER: SandboxUser = Object.freeze({ uid: 65534, gid: 65534 });
/** Default root for a runtime running as root. */
export const ROOT_USER_DEFAULT_ROOT = "/var/lib/sandport/local";

/** Validates options (no I/O) and applies defaults. Throws `INVALID_REQUEST` for a bad value. */
export function resolveOptions(options: LocalRuntimeOptions = {}): ResolvedLocalOptions {
  const read = new OptionReader("LocalRuntime", LOCAL_PROVIDER);
  const given = read.object(options, LOCAL_OPTION_KEYS);
  const isolation = given.isolation ?? "namespaces";
  if (isolation !== "namespaces" && isolation !== "none") {
    throw read.refuse("isolation", 'must be "namespaces" or "none"');
  }
  const cgroups = given.cgroups ?? "auto";
  if (cgroups !== "auto" && cgroups !== "disabled") throw read.refuse("cgroups", 'must be "auto" or "disabled"');
  const readOnlyPaths = given.readOnlyPaths ?? [];
  if (!Array.isArray(readOnlyPaths)) throw read.refuse("readOnlyPaths", "must be an array of absolute paths");
  const sandboxUser = checkUser(given.sandboxUser ?? DEFAULT_SANDBOX_USER, read);
  const namespaceScope = given.namespaceScope ?? "command";
  const syscallFilter = given.syscallFilter ?? true;
  if (typeof syscallFilter !== "boolean") throw read.refuse("syscallFilter", "must be true or false");
  if (namespaceScope !== "command" && namespaceScope !== "sandbox") {
    throw read.refuse("namespaceScope", 'must be "command" or "sandbox"');
  }
  if (namespaceScope === "sandbox" && isolation !== "namespaces") {
    throw read.refuse("namespaceScope", '"sandbox" needs isolation "namespaces"');
  }
  if (namespaceScope === "sandbox" && !runsAsRoot()) {
    throw read.refuse(
      "namespaceScope",
      '"sandbox" needs a runtime running as root (a command joins its sandbox\'s network namespace, which needs privileges an unprivileged process lacks)',
    );
  }
  const hostNetwork = given.hostNetwork ?? false;
  if (typeof hostNetwork !== "boolean") throw read.refuse("hostNetwork", "must be true or false");
  const workspaceRoot =
    given.workspaceRoot === undefined ? LOCAL_WORKSPACE_ROOT : checkWorkspaceRoot(read, given.workspaceRoot);
  return {
    ...read.common(given, {
      runBudgetMs: 600_000,
      maxOutputBytes: 16 * 1024 * 1024,
      timeouts: DEFAULT_LOCAL_TIMEOUTS,
    }),
    root: given.root === undefined ? undefined : hostPath(read, given.root, "root"),
    isolation,
    killGraceMs: read.integer(given.killGraceMs, "killGraceMs", 0, 60_000) ?? DEFAULT_KILL_GRACE_MS,
    bwrapPath: hostPath(read, given.bwrapPath ?? DEFAULT_BWRAP_PATH, "bwrapPath"),
    readOnlyPaths: Object.freeze(
      readOnlyPaths.map((path) => checkReadOnlyPath(read, hostPath(read, path, "readOnlyPaths"), workspaceRoot)),
    ),
    cgroups,
    sandboxUser: isolation === "namespaces" && runsAsRoot() ? sandboxUser : undefined,
    workspaceRoot,
    namespaceScope,
    syscallFilter: isolation === "namespaces" && syscallFilter,
    onEgressRefused: optionalFunction(read, given.onEgressRefused, "onEgressRefused"),
    egressResolver: optionalFunction(read, given.egressResolver, "egressResolver"),
    hostNetwork,
    defaultResources: resolveDefaultResources(read, given.defaultResources),
  };
}

function optionalFunction<F>(read: OptionReader, value: F | undefined, name: string): F | undefined {
  if (value !== undefined && typeof value !== "function") throw read.refuse(name, "must be a function");
  return value;
}

/** Whether this process runs as root (where switching to the sandbox user is possible and needed). */
export function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * The default root: `<home>/.cache/sandport/local` with the home directory
 * from the password database (not `$HOME`), or {@link ROOT_USER_DEFAULT_ROOT}
 * for root. Reads the password database, so call it lazily.
 */
export function defaultRoot(): string {
  if (runsAsRoot()) return ROOT_USER_DEFAULT_ROOT;
  return join(userInfo().homedir, ".cache", "sandport", "local");
}

function checkUser(value: unknown, read: OptionReader): SandboxUser {
  const user = value as SandboxUser | null;
  const valid = (id: unknown) => Number.isInteger(id) && (id as number) > 0 && (id as number) < 4_294_967_295;
  if (typeof user !== "object" || user === null || !valid(user.uid) || !valid(user.gid)) {
    throw read.refuse("sandboxUser", "must be { uid, gid }: positive integers (never 0, root)");
  }
  read.known(user, keyList<SandboxUser>({ uid: true, gid: true }), "sandboxUser.");
  return Object.freeze({ uid: user.uid, gid: user.gid });
}

/** Directories the sandbox's own filesystem is made of: a workspace root may be none of them, nor under one. */
const SYSTEM_DIRECTORIES = [
  "/proc",
  "/sys",
  "/dev",
  "/usr",
  "/etc",
  "/tmp",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/run",
];

/** An in-sandbox workspace root: absolute, normalized (no `.`, `..`, `//` or trailing `/`), not `/`, not a system directory. */
function checkWorkspaceRoot(read: OptionReader, value: unknown): string {
  const fail = (why: string) => read.refuse("workspaceRoot", `must be an absolute, normalized path${why && ` ${why}`}`);
  if (typeof value !== "string" || !value.startsWith("/") || /[\u0000-\u001f\u007f]/.test(value)) throw fail("");
  if (value === "/") throw fail("other than /");
  if (posix.normalize(value) !== value || value.endsWith("/")) throw fail("(no ., .., // or trailing /)");
  const system = SYSTEM_DIRECTORIES.find((directory) => value === directory || value.startsWith(`${directory}/`));
  if (system !== undefined) throw fail(`outside the sandbox's system directories (${system} is one)`);
  return value;
}

/** An absolute host path (no NUL), trailing slashes removed. */
function hostPath(read: OptionReader, value: unknown, field: string): string {
  if (typeof value !== "string" || !isAbsolute(value) || value.includes("\u0000")) {
    throw read.refuse(field, "must be an absolute path");
  }
  return value.length > 1 ? value.replace(/\/+$/, "") : value;
}
