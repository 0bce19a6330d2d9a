import { posix } from "node:path";
import { checkBridgeOptions, type ExecRequest, exitStatus, type SandboxHandle } from "@sandport/core";
import { resolvePath, type SessionContext, sessionContext, shellRequest } from "./session-context.js";
import { SANDBOX_SESSION_OPTION_KEYS, type SandboxSessionOptions } from "./session-options.js";

/** Where `bash-tool` puts files and runs commands when `createBashTool` is given no `destination`. */
export const BASH_TOOL_DEFAULT_DESTINATION = "/workspace";

/**
 * The `cd` that `bash-tool` puts before every command (after its tee set-up,
 * when that is on), into its destination.
 */
const DESTINATION_CD = /^((?:mkdir -p \/tmp\/bash-tool && )?)cd "([^"]*)" && /;

/**
 * The `Sandbox` that `bash-tool`'s `createBashTool({ sandbox })` takes: a
 * structural copy of its three members, so this package needs no types from
 * `bash-tool` (the type test checks both stay assignable to each other).
 */
export interface BashToolSandbox {
  /** Runs a shell command; a kill maps to exit code 137, a timeout to 124. */
  executeCommand(command: string): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  /** A file as UTF-8 text; a missing file rejects with `NOT_FOUND`. */
  readFile(path: string): Promise<string>;
  /** Writes the files in one call, parents created. */
  writeFiles(files: Array<{ path: string; content: string | Uint8Array }>): Promise<void>;
}

/**
 * Turns a Sandport runtime and sandbox into a `bash-tool` sandbox, for the
 * `bash`, `readFile` and `writeFile` tools it builds. `bash-tool`'s default
 * destination, `/workspace`, is the runtime's workspace (its
 * `workspaceRoot`, such as `/home/user/workspace` on E2B): a path at or
 * under `/workspace` that is not inside the workspace lands at the same
 * place under `workspaceRoot`, and the `cd` into the destination that
 * `bash-tool` puts before each command becomes the command's working
 * directory, so `createBashTool({ sandbox })` works without a
 * `destination` on every runtime. A path the model writes into a command
 * itself is not rewritten: pass `destination: runtime.workspaceRoot` for the
 * tools' instructions to name the real directory. Other relative paths
 * resolve against the base directory as in {@link createSandboxSession}.
 */
export function createBashToolSandbox<H extends SandboxHandle>(options: SandboxSessionOptions<H>): BashToolSandbox {
  checkBridgeOptions(options, SANDBOX_SESSION_OPTION_KEYS, "createBashToolSandbox options");
  const context = sessionContext(options);
  const { runtime, handle } = context;
  return {
    async executeCommand(command) {
      const result = await runtime.exec(handle, commandRequest(context, command));
      return { stdout: result.stdout, stderr: result.stderr, exitCode: exitStatus(result) };
    },
    async readFile(path) {
      return new TextDecoder().decode(await runtime.readFile(handle, inWorkspace(context, path)));
    },
    async writeFiles(files) {
      await runtime.writeFiles(
        handle,
        files.map((file) => ({ path: inWorkspace(context, file.path), content: file.content })),
      );
    },
  };
}

/**
 * A `bash-tool` command as a request: its leading `cd` into the destination
 * becomes the request's working directory (mapped by {@link inWorkspace}),
 * the rest the script; any other command runs in the base directory.
 */
function commandRequest(context: SessionContext, command: string): ExecRequest {
  const cd = DESTINATION_CD.exec(command);
  if (!cd) return shellRequest(context, { command });
  const [prefix, setup = "", directory = ""] = cd;
  const script = `${setup}${command.slice(prefix.length)}`;
  return shellRequest(context, { command: script, workingDirectory: inWorkspace(context, directory) });
}

/**
 * The sandbox path for a `bash-tool` path: inside the runtime's workspace as
 * it is; at or under `bash-tool`'s default destination the same place under
 * the workspace; anything else as it is (`/tmp`: a command may run in any
 * directory of the sandbox, while the port refuses a file outside the workspace).
 */
function inWorkspace(context: SessionContext, path: string): string {
  const absolute = resolvePath(context, path);
  const root = context.runtime.workspaceRoot;
  if (within(absolute, root) || !within(absolute, BASH_TOOL_DEFAULT_DESTINATION)) return absolute;
  return posix.join(root, posix.relative(BASH_TOOL_DEFAULT_DESTINATION, absolute));
}

/** Whether the absolute `path` is `directory` or lies under it. */
function within(path: string, directory: string): boolean {
  const trimmed = directory.replace(/\/+$/, "");
  return path === directory || path === trimmed || path.startsWith(`${trimmed}/`);
}
