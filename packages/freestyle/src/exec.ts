import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import { composeShellCommand, type ExecRequest, invalidRequest, isMissingCwdExit, quoteShellArg } from "@sandport/core";
import {
  assertCommandFits,
  cappedOutputScript,
  execCommands,
  missingCwd,
  planStdin,
  runCommandToEnd,
  validCommand,
} from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { fromHome, MAX_EXEC_TIMEOUT_MS, type ResolvedOptions } from "./options.js";
import { type CommandPlan, commandOptions, freestyleCommand } from "./vendor-command.js";

/** Largest stdin the API takes in the request itself (decoded); more is staged as a file first. */
export const API_STDIN_BYTES = 1024 * 1024;

/**
 * Validates a request and turns it into what `exec-await` takes: one command
 * string, run by the guest's shell in the home directory. Every caller value
 * is quoted (`composeShellCommand`): the working directory (relative to the
 * home directory), the request env (exported over the launch env, which is
 * sourced first), `argv`, or a `shell` script in its own `sh -c`. Output is
 * capped in the VM (`cappedOutputScript`). Stdin of up to 1 MiB goes in the
 * request; more is staged as a file the command opens and removes; none is
 * `/dev/null`. The timeout is the caller's, else the run budget, always sent.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest): CommandPlan {
  const { valid, marker, timeoutMs, maxOutputBytes, ...planned } = validCommand(options, request, PROVIDER);
  if (timeoutMs > MAX_EXEC_TIMEOUT_MS) {
    throw invalidRequest(`timeoutMs must be at most ${MAX_EXEC_TIMEOUT_MS} (Freestyle's longest command)`, {
      field: "timeoutMs",
    });
  }
  // Under home relative to it (the guest's shell starts there), anywhere else (`/tmp`) absolute.
  const named = (path: string) =>
    posix.relative(options.homeDirectory, path).startsWith("..") ? path : fromHome(options, path);
  // The workspace root is made by the command that first runs in it: a launch does not make it.
  const composed = composeShellCommand({
    request: valid,
    cwd: named(planned.cwd),
    workspace: named(options.workspaceRoot),
    ...(valid.env ? { env: valid.env } : {}),
  });
  const stdin = valid.stdin === undefined ? undefined : toBytes(valid.stdin);
  const staged =
    stdin !== undefined && stdin.byteLength > API_STDIN_BYTES
      ? planStdin(composed, stdin, {
          cwd: options.homeDirectory,
          scratchDirectory: posix.join(options.stateDirectory, "stdin"),
          name: randomUUID(),
          embedLimitBytes: 0,
        })
      : undefined;
  const cancelled = fromHome(options, posix.join(options.stateDirectory, "cancel", marker));
  const command = [
    stdin === undefined ? "exec 0</dev/null" : undefined,
    // A kill that reached the VM before this command did leaves this file: run nothing.
    `if [ -e ${quoteShellArg(cancelled)} ]; then rm -f -- ${quoteShellArg(cancelled)}; exit 125; fi`,
    launchEnvLine(options),
    cappedOutputScript(staged?.command ?? composed, maxOutputBytes + 1),
  ]
    .filter((line) => line !== undefined)
    .join("\n");
  assertCommandFits(command, PROVIDER);
  return {
    command,
    cwd: planned.cwd,
    marker,
    timeoutMs,
    maxOutputBytes,
    ...(stdin !== undefined && !staged ? { stdin: Buffer.from(stdin).toString("base64") } : {}),
    ...(staged?.upload ? { stdinUpload: staged.upload } : {}),
  };
}

/**
 * Runs a command to completion on the kit's engine (non-zero exits, timeouts
 * and truncation are results), ownership checked without a connect. The
 * call's deadline is the run budget plus `execGraceMs`, so the command's own
 * timeout always comes first. (No `execStream`: see capabilities.ts.)
 */
export const { exec } = execCommands<FreestyleContext, CommandPlan, never>({
  plan: (context, request) => planCommand(context.options, request),
  run: async (context, plan, { sandboxId, call, signal }) => {
    const result = await runCommandToEnd(
      freestyleCommand(context, sandboxId, plan, call),
      commandOptions(plan, signal),
    );
    // The script's `cd` failed: nothing ran (`composeShellCommand`).
    if (isMissingCwdExit(result.exitCode, result.stderr)) throw missingCwd(PROVIDER, plan.cwd, { sandboxId });
    return result;
  },
  connect: false,
});

/** The file the launch env is kept in (`export NAME='value'` lines), relative to the home directory. */
export function launchEnvPath(options: ResolvedOptions): string {
  return fromHome(options, posix.join(options.stateDirectory, "env"));
}

/** The shell line that sources the launch env file, when the launch wrote one. */
function launchEnvLine(options: ResolvedOptions): string {
  const path = quoteShellArg(launchEnvPath(options));
  return `if [ -f ${path} ]; then . ${path} || exit 125; fi`;
}

function toBytes(stdin: string | Uint8Array): Uint8Array {
  return typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin;
}
