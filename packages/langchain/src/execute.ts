import { type ExecResult, exitStatus } from "@sandport/core";
import type { ExecuteResponse } from "deepagents";

/**
 * A Sandport result as deepagents' `ExecuteResponse`: stdout, then stderr with
 * each line marked `[stderr] ` (as deepagents' own local shell backend does;
 * the port keeps the streams apart, so their interleaving is not known). A
 * non-zero exit is appended as `Exit code: N`. A killed command (Sandport's
 * `exitCode: null`) gets core's `exitStatus`, as in every bridge: 124 past its
 * time limit (what deepagents' own shell backend reports for a timeout), else
 * 137; the output says why.
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
  if (result.timedOut)
    output = `${output.trimEnd()}\n\nError: Command timed out after ${(result.durationMs / 1000).toFixed(1)} seconds.`;
  else if (result.truncated)
    output = `${output.trimEnd()}\n\n... Output truncated: the command was stopped at the output cap.`;
  else if (result.exitCode === null) output = `${output.trimEnd()}\n\nThe command was killed before it exited.`;
  const exitCode = exitStatus(result);
  if (exitCode !== 0) output = `${output.trimEnd()}\n\nExit code: ${exitCode}`;
  return { output, exitCode, truncated: result.truncated };
}
