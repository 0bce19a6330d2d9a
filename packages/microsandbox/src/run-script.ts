import { randomUUID } from "node:crypto";
import { EXEC_MARKER_ENV, type ExecResult } from "@sandport/core";
import { type OperationCall, runCommandToEnd, SCRIPT_OUTPUT_BYTES } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import type { MsbSandbox } from "./internal/sdk-types.js";
import { microsandboxCommand, runOptions } from "./vendor-command.js";

/**
 * Runs one of the adapter's own scripts (symlink guard, chmod, a guarded
 * read, a file archive's unpacking) in the workspace, to completion on the
 * kit's engine, within the caller's time, its output capped at
 * `maxOutputBytes`; `stdin` is written to it first; the caller's abort kills it.
 */
export function runScript(
  context: MicrosandboxContext,
  name: string,
  sandbox: MsbSandbox,
  script: string,
  call: OperationCall,
  stdin?: Uint8Array,
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const marker = randomUUID();
  const plan = {
    cmd: "/bin/sh",
    args: ["-c", script],
    cwd: context.options.workspaceRoot,
    env: { ...context.launchEnv(name), [EXEC_MARKER_ENV]: marker },
    marker,
    timeoutMs: Math.max(1, call.remainingMs()),
    maxOutputBytes,
    stdin,
  };
  return runCommandToEnd(microsandboxCommand(name, sandbox, plan, false), runOptions(plan, call.signal));
}
