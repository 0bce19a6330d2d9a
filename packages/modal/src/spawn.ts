import { spawnCommands } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { planCommand } from "./exec.js";
import type { ModalSandbox } from "./internal/sdk-types.js";
import { type CommandPlan, commandOptions, modalCommand } from "./vendor-command.js";

/**
 * Starts a command whose stdin stays open and resolves once Modal accepted it
 * (`spawnCommands`, see `SandboxProcess`). Its run budget is the request's
 * `timeoutMs`, else `runBudgetMs`; `op.timeoutMs` bounds only the start
 * (`launchMs` by default); aborting `op.signal`, before or after the start,
 * kills it. A `request.stdin` is written first; stdin then stays open for `write`.
 */
export const { spawn } = spawnCommands<ModalContext, CommandPlan, ModalSandbox>({
  plan: (context, request) => planCommand(context.options, request, true),
  startTimeoutMs: (context) => context.options.timeouts.launchMs,
  start: (_context, plan, { sandboxId, instance }) => ({
    command: modalCommand(instance, plan),
    ...commandOptions(plan, sandboxId),
    ...(plan.stdin !== undefined ? { firstWrite: plan.stdin } : {}),
  }),
});
