import { checkBridgeOptions, exitStatus, type SandboxHandle } from "@sandport/core";
import { resolvePath, sessionContext, shellRequest } from "./session-context.js";
import { SANDBOX_SESSION_OPTION_KEYS, type SandboxSessionOptions } from "./session-options.js";

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
 * `bash`, `readFile` and `writeFile` tools it builds. Relative paths resolve
 * against the base directory as in {@link createSandboxSession}; pass the
 * same directory (or the workspace root, `/workspace` by default) as
 * `createBashTool`'s `destination`, which is where its commands `cd`.
 */
export function createBashToolSandbox<H extends SandboxHandle>(options: SandboxSessionOptions<H>): BashToolSandbox {
  checkBridgeOptions(options, SANDBOX_SESSION_OPTION_KEYS, "createBashToolSandbox options");
  const context = sessionContext(options);
  const { runtime, handle } = context;
  return {
    async executeCommand(command) {
      const result = await runtime.exec(handle, shellRequest(context, { command }));
      return { stdout: result.stdout, stderr: result.stderr, exitCode: exitStatus(result) };
    },
    async readFile(path) {
      return new TextDecoder().decode(await runtime.readFile(handle, resolvePath(context, path)));
    },
    async writeFiles(files) {
      await runtime.writeFiles(
        handle,
        files.map((file) => ({ path: resolvePath(context, file.path), content: file.content })),
      );
    },
  };
}
