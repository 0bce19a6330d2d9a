import { spawnCommands } from "@sandport/core/adapter";
import { type CommandPlan, planCommand } from "./command-plan.js";
import type { DaytonaContext } from "./context.js";
import { engineOptions } from "./exec.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { sessionRun } from "./session-run.js";

/**
 * Starts a command whose stdin stays open, in its own Daytona session, and
 * resolves once it runs (`spawnCommands`). Daytona's session input has no end
 * of file, so the command reads its stdin from a relay in the sandbox that
 * decodes what `write` sends (base64 lines, through `sendSessionCommandInput`,
 * never echoed into the output) and closes the command's stdin on
 * `closeStdin`. `op.timeoutMs` bounds the start; the request's `timeoutMs`
 * (else `runBudgetMs`) the run; aborting `op.signal` at any time kills it.
 */
export const { spawn } = spawnCommands<DaytonaContext, CommandPlan, DaytonaSandbox>({
  plan: (context, request) => planCommand(context.options, request, "interactive"),
  startTimeoutMs: (context) => context.options.timeouts.lookupMs,
  start: (context, plan, { sandboxId, instance, call }) => {
    const run = sessionRun(context, instance, sandboxId, plan, call);
    return {
      command: run.command,
      ...engineOptions(plan, call.signal),
      stdin: run.stdin,
      ...(plan.firstWrite !== undefined ? { firstWrite: plan.firstWrite } : {}),
    };
  },
});
