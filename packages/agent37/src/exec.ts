import { posix } from "node:path";
import { composeShellCommand, type ExecRequest, invalidRequest, isMissingCwdExit } from "@sandport/core";
import {
  assertCommandFits,
  cappedOutputScript,
  execCommands,
  missingCwd,
  planStdin,
  runCommandToEnd,
  validCommand,
} from "@sandport/core/adapter";
import type { Agent37Context } from "./context.js";
import { PROVIDER } from "./handle.js";
import { EXEC_CAP_MS, fromHome, type ResolvedOptions } from "./options.js";
import { agent37Command, type CommandPlan, commandOptions, FROM_HOME } from "./vendor-command.js";

/**
 * Validates a request and turns it into exec's one field, `command`: exec
 * has no cwd, env, timeout or stdin, so each is written into the script
 * (`composeShellCommand`, every caller value quoted), after a `cd` to
 * `$HOME` (exec starts in `/`); a working directory whose `cd` fails is
 * `NOT_FOUND` (`missingCwd`), nothing run. Output is capped in the instance
 * (`cappedOutputScript`). Stdin up to 64 KiB is embedded; more is uploaded
 * to the state directory first and opened by the command. The run budget
 * (at most 280 s, the service's cap) is enforced here.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest): CommandPlan {
  const { valid, marker, timeoutMs, maxOutputBytes, env, cwd } = validCommand(options, request, PROVIDER);
  if (timeoutMs > EXEC_CAP_MS) {
    throw invalidRequest(
      `timeoutMs must be at most ${EXEC_CAP_MS}: Agent37 ends any exec at 280 s, and has no detached command`,
      { field: "timeoutMs" },
      PROVIDER,
    );
  }
  // Under home relative to it (the script starts there), anywhere else (`/tmp`) absolute.
  const named = (path: string) =>
    posix.relative(options.homeDirectory, path).startsWith("..") ? path : fromHome(options, path);
  // The workspace root is made by the command that first runs in it: the launch does not make it.
  const composed = composeShellCommand({
    request: valid,
    cwd: named(cwd),
    env,
    workspace: named(options.workspaceRoot),
  });
  // Braced, so that embedded stdin is piped into the whole command, not its first `cd`.
  const staged = planStdin(`{ ${composed}; }`, valid.stdin, {
    cwd: options.homeDirectory,
    scratchDirectory: posix.join(options.stateDirectory, "stdin"),
    name: marker,
  });
  const command = [
    FROM_HOME,
    valid.stdin === undefined ? "exec 0</dev/null" : undefined,
    cappedOutputScript(staged.command, maxOutputBytes + 1),
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
    ...(staged.upload ? { stdinUpload: staged.upload } : {}),
  };
}

/**
 * Runs a command to completion on the kit's engine (non-zero exits, the run
 * budget and truncation are results), ownership checked without a connect;
 * output Agent37 cut itself is `truncated` too.
 * No `execStream`: exec answers once, at the end.
 */
export const { exec } = execCommands<Agent37Context, CommandPlan, never>({
  plan: (context, request) => planCommand(context.options, request),
  run: async (context, plan, { sandboxId, call, signal }) => {
    const command = agent37Command(context, sandboxId, plan, call);
    const result = await runCommandToEnd(command, commandOptions(plan, signal));
    // The script's `cd` failed: nothing ran (`composeShellCommand`).
    if (isMissingCwdExit(result.exitCode, result.stderr)) throw missingCwd(PROVIDER, plan.cwd, { sandboxId });
    // Output Agent37 cut is output lost, whatever the request's own cap.
    return command.serviceCut && !result.truncated ? { ...result, truncated: true } : result;
  },
  connect: false,
});
