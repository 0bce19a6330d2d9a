/**
 * `LocalRuntime`'s options, checked (no I/O) and given their defaults.
 *
 * @module
 */

import { isAbsolute, posix } from "node:path";
import { OptionReader } from "@sandport/core/adapter";
import { resolveDefaultResources } from "./default-resources.js";
import {
  DEFAULT_BWRAP_PATH,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_LOCAL_TIMEOUTS,
  DEFAULT_SANDBOX_UIDS,
  DEFAULT_UID_MARKERS,
  LOCAL_OPTION_KEYS,
  LOCAL_PROVIDER,
  LOCAL_WORKSPACE_ROOT,
  type LocalRuntimeOptions,
  type ResolvedLocalOptions,
  runsAsRoot,
} from "./options.js";
import { checkReadOnlyPath } from "./read-only-paths.js";
import { checkUidRange, checkUser } from "./sandbox-user-options.js";

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
  const sandboxUser = given.sandboxUser === undefined ? undefined : checkUser(given.sandboxUser, read);
  if (sandboxUser && given.sandboxUids !== undefined) {
    throw read.refuse("sandboxUids", "cannot be given with sandboxUser (one user for every sandbox); choose one");
  }
  const sandboxUids = checkUidRange(given.sandboxUids ?? DEFAULT_SANDBOX_UIDS, read, (directory) =>
    hostPath(read, directory ?? DEFAULT_UID_MARKERS, "sandboxUids.directory"),
  );
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
    sandboxUids: isolation === "namespaces" && runsAsRoot() && !sandboxUser ? sandboxUids : undefined,
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
