import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import {
  composeShellCommand,
  EXEC_MARKER_ENV,
  type ExecRequest,
  invalidRequest,
  isMissingCwdExit,
  quoteShellArg,
} from "@sandport/core";
import {
  assertCommandFits,
  cappedOutputScript,
  execCommands,
  missingCwd,
  planStdin,
  runCommandToEnd,
  validCommand,
} from "@sandport/core/adapter";
import { type AgentCoreContext, envPath } from "./context.js";
import { PROVIDER } from "./handle.js";
import { fromWorkingDirectory, MAX_EXEC_TIMEOUT_MS, type ResolvedOptions } from "./options.js";
import { agentCoreCommand, type CommandPlan, cancelDirectory, commandOptions } from "./vendor-command.js";

/** Largest stdin embedded in the command itself; more is written to a file first. */
const EMBEDDED_STDIN_BYTES = 64 * 1024;

/**
 * Validates a request and turns it into what `executeCommand` takes: one
 * command string, run by the session's shell in the working directory. AgentCore
 * has no cwd, env or stdin field, so every caller value is quoted into the
 * command (`composeShellCommand`): the working directory (the workspace root
 * made first when missing), the request env
 * (exported over the launch env, sourced first) with the command's marker, and
 * `argv` or a `shell` script in its own `sh -c`; a working directory whose
 * `cd` fails is `NOT_FOUND` (`missingCwd`), nothing run. Output is capped in the
 * session (`cappedOutputScript`). Stdin is embedded up to 64 KiB, else
 * written as a file the command opens and removes; none is `/dev/null`. The
 * run budget is the engine's: AgentCore takes no timeout, and refuses none
 * longer than its 15-minute request.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest): CommandPlan {
  const { valid, marker, timeoutMs, maxOutputBytes, cwd } = validCommand(options, request, PROVIDER);
  if (timeoutMs > MAX_EXEC_TIMEOUT_MS) {
    throw invalidRequest(`timeoutMs must be at most ${MAX_EXEC_TIMEOUT_MS} (AgentCore's 15-minute request limit)`, {
      field: "timeoutMs",
    });
  }
  // Under the working directory relative to it (the script starts there), anywhere else (`/tmp`) absolute.
  const named = (path: string) =>
    posix.relative(options.workingDirectory, path).startsWith("..") ? path : fromWorkingDirectory(options, path);
  // A command in the workspace root makes it first when missing: a launch without labels or env does not make it.
  const composed = composeShellCommand({
    request: valid,
    cwd: named(cwd),
    env: { ...valid.env, [EXEC_MARKER_ENV]: marker },
    workspace: named(options.workspaceRoot),
  });
  const staged =
    valid.stdin === undefined
      ? undefined
      : // In a subshell: the pipe of embedded stdin must feed the whole `cd && export && exec` chain.
        planStdin(`(${composed})`, valid.stdin, {
          cwd: options.workingDirectory,
          scratchDirectory: `${options.stateDirectory}/stdin`,
          name: randomUUID(),
          embedLimitBytes: EMBEDDED_STDIN_BYTES,
        });
  const env = quoteShellArg(fromWorkingDirectory(options, envPath(options)));
  const cancelled = quoteShellArg(`${cancelDirectory(options)}/${marker}`);
  const command = [
    valid.stdin === undefined ? "exec 0</dev/null" : undefined,
    // A kill that reached the session before this command did leaves this file: run nothing.
    `if [ -e ${cancelled} ]; then rm -f -- ${cancelled}; exit 125; fi`,
    `if [ -f ${env} ]; then . ${env} || exit 125; fi`,
    cappedOutputScript(staged?.command ?? composed, maxOutputBytes + 1),
  ]
    .filter((line) => line !== undefined)
    .join("\n");
  assertCommandFits(command, PROVIDER);
  return {
    command,
    cwd,
    marker,
    timeoutMs,
    maxOutputBytes,
    ...(staged?.upload ? { stdinUpload: staged.upload } : {}),
  };
}

/**
 * Runs a command to completion on the kit's engine (non-zero exits, timeouts
 * and truncation are results), ownership checked without a connect. The
 * call's deadline is the run budget plus `execGraceMs`. (No `execStream`:
 * see capabilities.ts.)
 */
export const { exec } = execCommands<AgentCoreContext, CommandPlan, never>({
  plan: (context, request) => planCommand(context.options, request),
  run: async (context, plan, { sandboxId, call, signal }) => {
    const result = await runCommandToEnd(
      agentCoreCommand(context, sandboxId, plan, call),
      commandOptions(plan, signal),
    );
    // The script's `cd` failed: nothing ran (`composeShellCommand`).
    if (isMissingCwdExit(result.exitCode, result.stderr)) throw missingCwd(PROVIDER, plan.cwd, { sandboxId });
    return result;
  },
  connect: false,
});
