import { type ExecResult, exitStatus, SandportError } from "@sandport/core";
import type { ExecuteResponse, SandboxError } from "deepagents";
import type { DeepAgentsSdk } from "./internal/sdk.js";
import { reasonOf, sandboxError } from "./lifecycle-error.js";

/**
 * A Sandport result as deepagents' `ExecuteResponse`: stdout, then stderr with
 * each line marked `[stderr] ` (as deepagents' own local shell backend does;
 * the port keeps the streams apart, so their interleaving is not known). A
 * non-zero exit is appended as `Exit code: N`. A command killed before it
 * exited (Sandport's `exitCode: null`: the output cap, a kill) gets core's
 * `exitStatus`, 137, as in every bridge; the output says why. A command past
 * its time limit is not a response: {@link commandTimedOut} rejects it.
 */
export function toExecuteResponse(result: ExecResult): ExecuteResponse {
  const parts: string[] = [];
  if (result.stdout) parts.push(result.stdout);
  if (result.stderr) {
    parts.push(
      ...result.stderr
        .replace(/\n$/, "")
        .split("\n")
        .map((line) => `[stderr] ${line}`),
    );
  }
  let output = parts.length > 0 ? parts.join("\n") : "<no output>";
  if (result.truncated)
    output = `${output.trimEnd()}\n\n... Output truncated: the command was stopped at the output cap.`;
  else if (result.exitCode === null) output = `${output.trimEnd()}\n\nThe command was killed before it exited.`;
  const exitCode = exitStatus(result);
  if (exitCode !== 0) output = `${output.trimEnd()}\n\nExit code: ${exitCode}`;
  return { output, exitCode, truncated: result.truncated };
}

/**
 * A command that ran past its time limit, as deepagents' first-party sandboxes
 * with a command timeout (Daytona) reject it: the framework's `SandboxError`
 * `COMMAND_TIMEOUT`, here with a Sandport `DEADLINE_EXCEEDED` as `cause` whose
 * `details` keep what the command wrote before it was stopped.
 */
export function commandTimedOut(
  sdk: DeepAgentsSdk,
  command: string,
  result: ExecResult,
  provider: string,
): SandboxError {
  const seconds = (result.durationMs / 1000).toFixed(1);
  const cause = new SandportError({
    code: "DEADLINE_EXCEEDED",
    provider,
    message: `The command ran past its time limit and was stopped after ${seconds} seconds`,
    details: { stdout: result.stdout, stderr: result.stderr, durationMs: result.durationMs },
  });
  return sandboxError(sdk, `Command timed out after ${seconds} seconds: ${command}`, "COMMAND_TIMEOUT", cause);
}

/**
 * A runtime failure of `execute` (the sandbox gone, the provider down, a
 * request refused) as deepagents' first-party sandboxes (Daytona, Modal, Deno)
 * reject it: the framework's `SandboxError` `COMMAND_FAILED` ("Command execution
 * failed: ..."), or `COMMAND_TIMEOUT` for a call that ran past its deadline,
 * with the Sandport error as `cause`.
 */
export function commandFailed(sdk: DeepAgentsSdk, command: string, error: unknown): SandboxError {
  if (SandportError.isInstance(error) && error.code === "DEADLINE_EXCEEDED") {
    return sandboxError(sdk, `Command timed out: ${command}`, "COMMAND_TIMEOUT", error);
  }
  return sandboxError(sdk, `Command execution failed: ${reasonOf(error)}`, "COMMAND_FAILED", error);
}
