import { userInfo } from "node:os";
import { join } from "node:path";
import { keyList, type OperationTimeouts, type ResourceLimits } from "@sandport/core";
import {
  COMMON_RUNTIME_OPTION_SHAPE,
  type CommonRuntimeOptions,
  type ResolvedCommonOptions,
} from "@sandport/core/adapter";
import type { LocalDefaultResources } from "./default-resources.js";
import type { EgressRefusedEvent } from "./egress/egress-proxy.js";
import type { EgressResolver } from "./egress/egress-rules.js";

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
   * run as {@link sandboxUser}, who must pass through them). As root, a parent
   * that was already there and that the sandbox user cannot pass through (a
   * `mkdtemp` directory, mode `0700`) is left as it is: each command then
   * starts in a private mount namespace of its own where a tmpfs covers that
   * parent and only its sandbox's directory is bound back in (a few ms per
   * command). Default: `~/.cache/sandport/local`, where `~`
   * is the current user's home directory from the password database (not
   * `$HOME`); for root, `/var/lib/sandport/local`. See {@link defaultRoot}. Two runtimes with
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
   * One unprivileged host user (numeric `uid` and `gid`) that every isolated
   * command of every sandbox runs as when this process runs as root, in place
   * of a uid of its own per sandbox ({@link sandboxUids}). Sandboxes then no
   * longer keep each other out: a command of one, or any host process running
   * as that user, may read another's workspace by its host path. Kept for
   * hosts that must run commands as one given account. Ignored when the
   * process is not root and under `isolation: "none"`. Refused together with
   * `sandboxUids`. Default: none (one uid per sandbox).
   */
  readonly sandboxUser?: SandboxUser;
  /**
   * The host uids this runtime gives its sandboxes when it runs as root under
   * `isolation: "namespaces"`: each launch takes a free one (`first` to
   * `first + count - 1`; the gid is the same number), records it in the
   * sandbox's metadata, and `destroy` gives it back once the sandbox's
   * processes and files are gone. The sandbox's workspace (mode `0700`), every
   * file the runtime writes into it, its commands and its namespace holder
   * are that uid's, so a workspace is readable by its own sandbox alone:
   * another sandbox and a host process running as any other non-root user
   * are refused. A uid is taken by an exclusive create of a marker file
   * (`<directory>/<uid>`, default `/var/lib/sandport/uids`, host-wide, not
   * per root), so runtimes in any process, over any root, never share one
   * while they share the directory. The range must belong to the runtime: no
   * account, file or process of the host may use these uids (no password
   * database entry is needed). Below 2^31 (tools that read uids as signed numbers misread
   * larger ones) and above 65535. Default: `{ first: 2_000_000_000, count: 65_536 }`,
   * beside systemd's container range and below its foreign-image range.
   */
  readonly sandboxUids?: UidRange;
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
  sandboxUids: true,
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

/** A range of host uids the runtime owns: `first` to `first + count - 1` (see `LocalRuntimeOptions.sandboxUids`). */
export interface UidRange {
  readonly first: number;
  readonly count: number;
  /**
   * Absolute directory of the markers that say which uids are in use, one file per uid. Every runtime on
   * the host whose range overlaps this one must use the same directory, whatever its root. Default:
   * {@link DEFAULT_UID_MARKERS}.
   */
  readonly directory?: string;
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
  /**
   * The one user every isolated command runs as (the `sandboxUser` option): set only when it was given,
   * this process is root and isolation is `namespaces`.
   */
  readonly sandboxUser: SandboxUser | undefined;
  /**
   * The uids sandboxes take one each (see `LocalRuntimeOptions.sandboxUids`): set only when this process is
   * root, isolation is `namespaces` and no `sandboxUser` was given.
   */
  readonly sandboxUids: Required<UidRange> | undefined;
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
export const DEFAULT_KILL_GRACE_MS = 250;
/** Default bubblewrap binary. */
export const DEFAULT_BWRAP_PATH = "/usr/bin/bwrap";
/**
 * The user isolated commands ran as under a root runtime before sandboxes had uids of their own:
 * `nobody` / `nogroup` on Debian. A sandbox whose record names no user was launched so.
 */
export const LEGACY_SANDBOX_USER: SandboxUser = Object.freeze({ uid: 65534, gid: 65534 });
/** Default uids of a root runtime's sandboxes (see `LocalRuntimeOptions.sandboxUids`). */
export const DEFAULT_SANDBOX_UIDS: UidRange = Object.freeze({ first: 2_000_000_000, count: 65_536 });
/** Default directory of the markers of uids in use (see `UidRange.directory`): one per host. */
export const DEFAULT_UID_MARKERS = "/var/lib/sandport/uids";
/** Default root for a runtime running as root. */
export const ROOT_USER_DEFAULT_ROOT = "/var/lib/sandport/local";

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
