import { randomUUID } from "node:crypto";
import { composeShellCommand, type ExecRequest, enterCwdScript, isMissingCwdExit } from "@sandport/core";
import {
  assertCommandFits,
  execCommands,
  missingCwd,
  planStdin,
  runCommandToEnd,
  validCommand,
  workspaceEntry,
} from "@sandport/core/adapter";
import type { VercelContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { type CommandPlan, lostOutput, vercelCommand } from "./vendor-command.js";

/**
 * Validates a request and turns it into what Vercel takes: the program and
 * its arguments, the working directory and the environment each in their own
 * field (a `shell` script runs as `sh -c <script>`). Vercel has no stdin, so
 * a request with stdin runs as `sh -c` reading it from base64 embedded in
 * the script, or above 64 KiB from a file staged beside the workspace
 * (`planStdin`). The timeout is the caller's, else the run budget.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest): CommandPlan {
  const { valid, ...common } = validCommand(options, request, PROVIDER);
  if (valid.stdin === undefined) {
    const [cmd, ...args] = valid.argv ? [...valid.argv] : ["sh", "-c", valid.shell as string];
    // Linux refuses any one argument over 128 KiB; say so before sending it.
    for (const argument of args) assertCommandFits(argument, PROVIDER);
    return enteringWorkspace({ cmd: cmd as string, args, ...common }, options);
  }
  const staging = { cwd: common.cwd, scratchDirectory: options.stdinDirectory, name: randomUUID() };
  const stdin = planStdin(composeShellCommand({ request: valid }), valid.stdin, staging);
  assertCommandFits(stdin.command, PROVIDER);
  const plan = { cmd: "sh", args: ["-c", stdin.command], ...common };
  return enteringWorkspace({ ...plan, ...(stdin.upload ? { stdinUpload: stdin.upload } : {}) }, options);
}

/**
 * A command in the workspace root, which a launch does not make: it starts in
 * the home directory, and its own `sh` makes the workspace when missing and
 * enters it by its path from there (`workspaceEntry`, `enterCwdScript`), then
 * `exec`s the program with its arguments unchanged. A command anywhere else
 * is sent as planned.
 */
export function enteringWorkspace(
  plan: CommandPlan,
  { homeDirectory, workspaceRoot }: Pick<ResolvedOptions, "homeDirectory" | "workspaceRoot">,
): CommandPlan {
  if (plan.cwd !== workspaceRoot) return plan;
  const { start, path } = workspaceEntry(homeDirectory, workspaceRoot);
  const enter = `${enterCwdScript(path, path)} && exec "$@"`;
  return { ...plan, cmd: "sh", args: ["-c", enter, "sh", plan.cmd, ...plan.args], cwd: start, entersWorkspace: true };
}

/**
 * `exec` runs a command to completion (non-zero exits, timeouts and
 * truncation are results); `execStream` yields `started`, output chunks as
 * Vercel streams them, then `exited`. Both on the kit's engine, with a call
 * deadline of the run budget plus `execGraceMs`, so the command's own
 * timeout always fires first.
 */
export const { exec, execStream } = execCommands<VercelContext, CommandPlan, VercelSandbox>({
  plan: (context, request) => planCommand(context.options, request),
  run: async (context, plan, { operation, sandboxId, instance, signal, emit }) => {
    const result = await runCommandToEnd(vercelCommand(instance, plan, context.options.timeouts.fileMs), {
      provider: PROVIDER,
      timeoutMs: plan.timeoutMs,
      maxOutputBytes: plan.maxOutputBytes,
      signal,
      ...(emit ? { emit } : {}),
      lostOutput: (error) => lostOutput(sandboxId, error, operation),
    });
    // A workspace root its script could neither find nor make: nothing ran.
    if (plan.entersWorkspace && isMissingCwdExit(result.exitCode, result.stderr)) {
      throw missingCwd(PROVIDER, context.options.workspaceRoot, { sandboxId });
    }
    return result;
  },
});
