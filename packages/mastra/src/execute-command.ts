import type { CommandResult, ExecuteCommandOptions } from "@mastra/core/workspace";
import { type ExecRequest, type ExecResult, exitStatus, quoteArgv, SandportError } from "@sandport/core";
import { type BridgeContext, commandCwd, commandEnv } from "./context.js";
import { toMastraSandboxError } from "./sandbox-errors.js";

/**
 * The request a Mastra command becomes: a shell script (the args shell-quoted
 * after the command, as Mastra's own sandboxes do), in the base directory
 * unless told otherwise, the environment overlay under the call's own.
 */
export function commandRequest(
  context: BridgeContext,
  command: string,
  args: readonly string[] | undefined,
  options: Pick<ExecuteCommandOptions, "cwd" | "env" | "timeout">,
): ExecRequest {
  const timeoutMs = options.timeout ?? context.commandTimeoutMs;
  return {
    shell: args?.length ? `${command} ${quoteArgv(args)}` : command,
    cwd: commandCwd(context, options.cwd),
    env: commandEnv(context, options.env),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

/**
 * A finished command as Mastra's `CommandResult`. A `null` exit code (killed)
 * maps through `exitStatus` (124 timed out, else 137) with `killed: true`; a
 * command stopped at the output cap is such a kill.
 */
export function commandResult(result: ExecResult, command: string, args: readonly string[] | undefined): CommandResult {
  const exitCode = exitStatus(result);
  return {
    success: exitCode === 0,
    exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    executionTimeMs: Math.round(result.durationMs),
    timedOut: result.timedOut,
    killed: result.exitCode === null && !result.timedOut,
    command,
    ...(args?.length ? { args: [...args] } : {}),
  };
}

/**
 * `executeCommand`: through `execStream` when the caller streams
 * (`onStdout`/`onStderr`) and the runtime can, else one `exec` (callbacks
 * then get the whole output at the end). An abort rejects with Mastra's
 * `SandboxAbortError`, Sandport's `ABORTED` error as its `cause`; a working
 * directory outside the workspace with Mastra's `PermissionError` (see
 * `toMastraSandboxError`).
 */
export async function executeCommand(
  context: BridgeContext,
  command: string,
  args: string[] | undefined,
  options: ExecuteCommandOptions = {},
): Promise<CommandResult> {
  const { runtime } = context;
  const request = commandRequest(context, command, args, options);
  const op = options.abortSignal === undefined ? {} : { signal: options.abortSignal };
  const streaming = options.onStdout !== undefined || options.onStderr !== undefined;
  try {
    let result: ExecResult | undefined;
    if (streaming && runtime.execStream) {
      for await (const event of runtime.execStream(context.handle(), request, op)) {
        if (event.type === "stdout") options.onStdout?.(event.data);
        else if (event.type === "stderr") options.onStderr?.(event.data);
        else if (event.type === "exited") result = event.result;
      }
    } else {
      result = await runtime.exec(context.handle(), request, op);
      if (result.stdout) options.onStdout?.(result.stdout);
      if (result.stderr) options.onStderr?.(result.stderr);
    }
    if (!result) throw new SandportError({ code: "UNEXPECTED", message: "the command's events ended without an exit" });
    return commandResult(result, command, args);
  } catch (error) {
    if (!SandportError.hasCode(error, "ABORTED"))
      throw toMastraSandboxError(context.mastra, error, { cwd: options.cwd ?? request.cwd });
    throw Object.assign(new context.mastra.SandboxAbortError("executeCommand", options.abortSignal?.reason), {
      cause: error,
    });
  }
}
