import { spawnCommands } from "@sandport/core/adapter";
import { type CommandPlan, planCommand } from "./command-plan.js";
import type { E2BContext } from "./context.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { lostOutput } from "./process-control.js";
import { e2bStdin } from "./process-stdin.js";
import { e2bCommand } from "./vendor-command.js";

/**
 * Starts a command whose stdin stays open (`commands.run` with `stdin: true`)
 * and resolves once it runs, after writing the request's `stdin`, if any
 * (`spawnCommands`). The request is planned as for `exec` (argv quoted,
 * `shell` in `sh -c`, a per-command marker so a kill reaches its
 * descendants). Its run budget is the request's `timeoutMs`, else
 * `runBudgetMs`; `op.timeoutMs` (default `lookupMs`) bounds only the start;
 * aborting `op.signal` kills the command, before or after the start.
 */
export const { spawn } = spawnCommands<E2BContext, CommandPlan, E2BSandbox>({
  plan: (context, request) => planCommand(context.options, request, true),
  startTimeoutMs: (context) => context.options.timeouts.lookupMs,
  start: (context, plan, { sandboxId, instance }) => ({
    command: e2bCommand(context, sandboxId, instance, plan, true),
    timeoutMs: plan.timeoutMs,
    maxOutputBytes: plan.maxOutputBytes,
    lostOutput: (error, pid) => lostOutput(sandboxId, pid, error),
    stdin: (pid) => e2bStdin(context, instance, pid as number),
    ...(plan.firstWrite !== undefined ? { firstWrite: plan.firstWrite } : {}),
  }),
});
