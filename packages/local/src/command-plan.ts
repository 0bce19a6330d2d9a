import { join } from "node:path";
import { quoteShellArg, toSandboxPath, type ValidatedExecRequest } from "@sandport/core";
import { buildBwrapInvocation } from "./bwrap.js";
import { joinFiles } from "./cgroups.js";
import { buildEnvironment } from "./environment.js";
import type { LocalIsolation } from "./options.js";
import type { CgroupDirectory, SandboxRecord } from "./sandbox-record.js";

/** Exit status of a command that could not join its cgroups (it never ran). */
export const JOIN_FAILED_EXIT = 125;
/** What the join step prints on failure; the runner turns it into an error. */
export const JOIN_FAILED_MESSAGE = "sandport: could not join the sandbox's control group";

/** A command's own cgroup, killed and removed when the command ends. */
export type CommandLeaf = CgroupDirectory;

/** Exactly what to spawn for one command: program, arguments, environment, host cwd, extra input, cgroup leaf. */
export interface SpawnPlan {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Host working directory for `spawn`. */
  readonly cwd: string;
  /** Bytes for file descriptor 3 (bubblewrap's `--args 3`), when present. */
  readonly fd3?: Buffer;
  /** The command's own tracking cgroup, killed and removed when it ends. */
  readonly leaf?: CommandLeaf;
  readonly isolation: LocalIsolation;
}

/** Inputs of {@link planCommand}. */
export interface PlanInput {
  readonly isolation: LocalIsolation;
  readonly bwrapPath: string;
  readonly readOnlyPaths: readonly string[];
  /** Host directory of the workspace. */
  readonly workspaceDirectory: string;
  /** Workspace path inside the sandbox (`/workspace`). */
  readonly workspaceRoot: string;
  readonly record: SandboxRecord;
  readonly request: ValidatedExecRequest;
  /** The command's tracking leaf directory, already created, if any. */
  readonly leaf?: string;
}

/**
 * Turns a validated request into a spawn plan.
 *
 * Cgroups must be joined before the command can fork, so when there are any
 * to join, the plan starts with a tiny `/bin/sh` step that writes its own pid
 * into each `cgroup.procs` and then `exec`s the real program (under
 * `namespaces`, bubblewrap itself). A shell request under `none` joins inside
 * its own `sh -c`, costing no extra process.
 */
export function planCommand(input: PlanInput): SpawnPlan {
  const { request, record } = input;
  const joins = joinFiles(record.cgroups, input.leaf);
  const tracking = record.cgroups?.tracking;
  const leaf: CommandLeaf | undefined =
    input.leaf && tracking ? { version: tracking.version, directory: input.leaf } : undefined;
  const command = request.argv ? [...request.argv] : ["/bin/sh", "-c", request.shell as string];
  if (input.isolation === "namespaces") {
    const invocation = buildBwrapInvocation({
      workspaceDirectory: input.workspaceDirectory,
      workspaceRoot: input.workspaceRoot,
      cwd: toSandboxPath(input.workspaceRoot, request.cwd),
      network: record.network,
      readOnlyPaths: input.readOnlyPaths,
      env: buildEnvironment(input.workspaceRoot, record.env, request.env),
      command,
    });
    const [file, args] =
      joins.length > 0
        ? ["/bin/sh", ["-c", joinThenExec(joins.length), "sh", ...joins, input.bwrapPath, ...invocation.args]]
        : [input.bwrapPath, invocation.args];
    return { file, args, env: {}, cwd: "/", fd3: invocation.fd3, isolation: "namespaces", ...(leaf ? { leaf } : {}) };
  }
  const env = buildEnvironment(input.workspaceDirectory, record.env, request.env);
  const cwd = request.cwd === "" ? input.workspaceDirectory : join(input.workspaceDirectory, request.cwd);
  let file: string;
  let args: string[];
  if (joins.length === 0) [file, ...args] = command as [string, ...string[]];
  else if (request.shell !== undefined) [file, args] = ["/bin/sh", ["-c", `${joinInline(joins)}${request.shell}`]];
  else [file, args] = ["/bin/sh", ["-c", joinThenExec(joins.length), "sh", ...joins, ...command]];
  return { file, args, env, cwd, isolation: "none", ...(leaf ? { leaf } : {}) };
}

/** `sh -c` script: write `$$` into the first `count` arguments (cgroup.procs files), then exec the rest. */
function joinThenExec(count: number): string {
  const writes = Array.from({ length: count }, (_, index) => `echo $$ > "$${index + 1}"`).join(" && ");
  return `{ ${writes}; } || { echo "${JOIN_FAILED_MESSAGE}" >&2; exit ${JOIN_FAILED_EXIT}; }; shift ${count}; exec "$@"`;
}

/** The same join, as a prefix to the caller's own script (same line, so its line numbers are unchanged). */
function joinInline(files: readonly string[]): string {
  const writes = files.map((file) => `echo $$ > ${quoteShellArg(file)}`).join(" && ");
  return `{ ${writes}; } || { echo "${JOIN_FAILED_MESSAGE}" >&2; exit ${JOIN_FAILED_EXIT}; }; `;
}
