import { userInfo } from "node:os";
import { isAbsolute, join } from "node:path";
import { invalidRequest, validateMaxOutputBytes, validateTimeoutMs } from "@sandport/core";

/** The provider name `LocalRuntime` reports and stamps on its handles. */
export const LOCAL_PROVIDER = "local";

/** Where the workspace appears inside an isolated sandbox; also the root of request paths in both modes. */
export const LOCAL_WORKSPACE_ROOT = "/workspace";

/** How commands are separated from the host. */
export type LocalIsolation = "namespaces" | "none";

/** Whether the runtime may use Linux control groups. */
export type CgroupUsage = "auto" | "disabled";

/** Options for `LocalRuntime`. Every field is optional; nothing is read from the environment. */
export interface LocalRuntimeOptions {
  /**
   * Absolute directory that holds one sub-directory per sandbox (created on
   * first launch, mode `0700`; `0711` when commands run as {@link sandboxUser},
   * who must pass through it). Default: `~/.cache/sandport/local`, where `~`
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
   * Ownership marker written into every sandbox this runtime launches. Sandboxes
   * under `root` with another owner (or none) are foreign: `getById` rejects
   * with `FOREIGN_SANDBOX`, and they are never listed or destroyed.
   * 1-64 characters of `[A-Za-z0-9._-]`. Default: `"sandport"`.
   */
  readonly owner?: string;
  /**
   * Run budget in milliseconds for a command without its own `timeoutMs`; past
   * it the command's whole process tree is killed and the result says
   * `timedOut`. Default: 600 000 (10 minutes).
   */
  readonly runBudgetMs?: number;
  /**
   * Cap on combined stdout + stderr bytes for a command without its own
   * `maxOutputBytes`; past it the command is killed and the result says
   * `truncated`. Default: 16 MiB.
   */
  readonly maxOutputBytes?: number;
  /**
   * Milliseconds between SIGTERM and SIGKILL when a command is stopped (timeout,
   * abort, output cap, destroy). Default: 250.
   */
  readonly killGraceMs?: number;
  /**
   * Deadline in milliseconds for a call that does not run a command (launch,
   * files, lookups, destroy) when `OpOptions.timeoutMs` is absent. Default: 60 000.
   */
  readonly operationTimeoutMs?: number;
  /** Absolute path of the bubblewrap binary. Default: `/usr/bin/bwrap`. */
  readonly bwrapPath?: string;
  /**
   * Extra absolute host paths mounted read-only at the same place inside the
   * sandbox (under `namespaces`), e.g. `["/opt/toolchain"]`. Missing paths are
   * skipped. Default: none; only `/usr` and a curated list of `/etc` entries are visible.
   */
  readonly readOnlyPaths?: readonly string[];
  /**
   * `auto` (default): use a writable cgroup hierarchy, where one exists, to
   * enforce `LaunchSpec.resources` and (under `isolation: "none"`) to kill
   * processes that left the command's process group. `disabled`: never touch
   * cgroups; resource limits are then refused with `UNSUPPORTED`, and under
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
}

/** A host user by number. */
export interface SandboxUser {
  readonly uid: number;
  readonly gid: number;
}

/** Options after validation, with every default applied. */
export interface ResolvedLocalOptions {
  /** Absolute sandbox root, or `undefined` to use the per-user default (resolved lazily). */
  readonly root: string | undefined;
  readonly isolation: LocalIsolation;
  readonly owner: string;
  readonly runBudgetMs: number;
  readonly maxOutputBytes: number;
  readonly killGraceMs: number;
  readonly operationTimeoutMs: number;
  readonly bwrapPath: string;
  readonly readOnlyPaths: readonly string[];
  readonly cgroups: CgroupUsage;
  /** Who isolated commands run as: set only when this process is root and isolation is `namespaces`. */
  readonly sandboxUser: SandboxUser | undefined;
}

/** Default owner marker. */
export const DEFAULT_OWNER = "sandport";
/** Default run budget for a command, in ms. */
export const DEFAULT_RUN_BUDGET_MS = 600_000;
/** Default output cap, in bytes. */
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Default SIGTERM → SIGKILL grace, in ms. */
export const DEFAULT_KILL_GRACE_MS = 250;
/** Default deadline of a call that runs no command, in ms. */
export const DEFAULT_OPERATION_TIMEOUT_MS = 60_000;
/** Default bubblewrap binary. */
export const DEFAULT_BWRAP_PATH = "/usr/bin/bwrap";
/** Default user isolated commands run as when the runtime is root: `nobody` / `nogroup` on Debian. */
export const DEFAULT_SANDBOX_USER: SandboxUser = Object.freeze({ uid: 65534, gid: 65534 });
/** Default root for a runtime running as root. */
export const ROOT_USER_DEFAULT_ROOT = "/var/lib/sandport/local";

const OWNER_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Validates options (no I/O) and applies defaults. Throws `INVALID_REQUEST` for a bad value. */
export function resolveOptions(options: LocalRuntimeOptions = {}): ResolvedLocalOptions {
  const fail = (field: string, why: string) =>
    invalidRequest(`LocalRuntime option ${field} ${why}`, { field }, LOCAL_PROVIDER);
  if (typeof options !== "object" || options === null) throw fail("(options)", "must be an object");
  const isolation = options.isolation ?? "namespaces";
  if (isolation !== "namespaces" && isolation !== "none") throw fail("isolation", 'must be "namespaces" or "none"');
  const owner = options.owner ?? DEFAULT_OWNER;
  if (typeof owner !== "string" || !OWNER_PATTERN.test(owner)) throw fail("owner", "must be 1-64 of [A-Za-z0-9._-]");
  const cgroups = options.cgroups ?? "auto";
  if (cgroups !== "auto" && cgroups !== "disabled") throw fail("cgroups", 'must be "auto" or "disabled"');
  const root = options.root === undefined ? undefined : absolutePath(options.root, "root", fail);
  const bwrapPath = absolutePath(options.bwrapPath ?? DEFAULT_BWRAP_PATH, "bwrapPath", fail);
  const readOnlyPaths = options.readOnlyPaths ?? [];
  if (!Array.isArray(readOnlyPaths)) throw fail("readOnlyPaths", "must be an array of absolute paths");
  for (const path of readOnlyPaths) absolutePath(path, "readOnlyPaths", fail);
  const sandboxUser = checkUser(options.sandboxUser ?? DEFAULT_SANDBOX_USER, fail);
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (!Number.isInteger(killGraceMs) || killGraceMs < 0 || killGraceMs > 60_000) {
    throw fail("killGraceMs", "must be an integer between 0 and 60000");
  }
  return {
    root,
    isolation,
    owner,
    runBudgetMs: validateTimeoutMs(options.runBudgetMs, "runBudgetMs", LOCAL_PROVIDER) ?? DEFAULT_RUN_BUDGET_MS,
    maxOutputBytes:
      validateMaxOutputBytes(options.maxOutputBytes, "maxOutputBytes", LOCAL_PROVIDER) ?? DEFAULT_MAX_OUTPUT_BYTES,
    killGraceMs,
    operationTimeoutMs:
      validateTimeoutMs(options.operationTimeoutMs, "operationTimeoutMs", LOCAL_PROVIDER) ??
      DEFAULT_OPERATION_TIMEOUT_MS,
    bwrapPath,
    readOnlyPaths: Object.freeze([...readOnlyPaths]),
    cgroups,
    sandboxUser: isolation === "namespaces" && runsAsRoot() ? sandboxUser : undefined,
  };
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

function checkUser(value: unknown, fail: (field: string, why: string) => Error): SandboxUser {
  const user = value as SandboxUser | null;
  const valid = (id: unknown) => Number.isInteger(id) && (id as number) > 0 && (id as number) < 4_294_967_295;
  if (typeof user !== "object" || user === null || !valid(user.uid) || !valid(user.gid)) {
    throw fail("sandboxUser", "must be { uid, gid }: positive integers (never 0, root)");
  }
  return Object.freeze({ uid: user.uid, gid: user.gid });
}

function absolutePath(value: unknown, field: string, fail: (field: string, why: string) => Error): string {
  if (typeof value !== "string" || !isAbsolute(value) || value.includes("\u0000")) {
    throw fail(field, "must be an absolute path");
  }
  return value.length > 1 ? value.replace(/\/+$/, "") : value;
}
