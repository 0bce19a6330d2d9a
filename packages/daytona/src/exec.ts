import { isMissingCwdExit, SandportError } from "@sandport/core";
import { type CommandRunOptions, execCommands, lostOutput, missingCwd, runCommandToEnd } from "@sandport/core/adapter";
import { type CommandPlan, planCommand } from "./command-plan.js";
import type { DaytonaContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { sessionRun } from "./session-run.js";
import { executeCommandRun } from "./vendor-command.js";

/**
 * `exec` runs a command to completion with `executeCommand` (one request):
 * stdout and stderr come back merged, as Daytona runs it. `execStream` runs
 * it in its own Daytona session and yields `started`, output chunks as they
 * arrive over the SDK's log WebSocket, then `exited`; output is merged
 * (stderr written into stdout where the command runs), so it arrives in the
 * order it was written. Both on the kit's engine: non-zero exits, the timeout
 * (`timedOut`) and the output cap (`truncated`) are results; a timeout, an
 * abort, a deadline or the consumer leaving the loop kills the command and its
 * descendants by their marker. The call's deadline is the run budget plus `execGraceMs`.
 * An `exec` in the workspace root that could not make it (a launch does not)
 * ran nothing: `NOT_FOUND` naming the workspace (`missingCwd`).
 */
export const { exec, execStream } = execCommands<DaytonaContext, CommandPlan, DaytonaSandbox>({
  plan: (context, request, operation) =>
    planCommand(context.options, request, operation === "exec" ? "exec" : "session"),
  run: async (context, plan, { operation, sandboxId, instance, call, signal, emit }) => {
    if (operation !== "exec") {
      return runCommandToEnd(sessionRun(context, instance, sandboxId, plan, call).command, {
        ...engineOptions(plan, signal),
        emit,
      });
    }
    const result = await runCommandToEnd(
      executeCommandRun(instance, sandboxId, plan, call),
      engineOptions(plan, signal),
    );
    // A workspace root its script could neither find nor make (`startInWorkspace`): nothing ran.
    if (plan.processCwd !== plan.cwd && isMissingCwdExit(result.exitCode, result.stdout)) {
      throw missingCwd(PROVIDER, plan.cwd, { sandboxId, reason: "the command could not make it" });
    }
    return result;
  },
});

/** The engine's options for a plan; a broken stream that Daytona's own error already names is passed on as it is. */
export function engineOptions(plan: CommandPlan, signal: AbortSignal): CommandRunOptions {
  return {
    provider: PROVIDER,
    timeoutMs: plan.timeoutMs,
    maxOutputBytes: plan.maxOutputBytes,
    signal,
    lostOutput: (error, pid) => (SandportError.isInstance(error) ? error : lostOutput(PROVIDER, error, pid)),
  };
}
