import { spawnCommands } from "@sandport/core/adapter";
import { type CommandPlan, planCommand } from "./command-plan.js";
import type { KubernetesContext } from "./context.js";
import { commandOptions, kubernetesCommand } from "./vendor-command.js";

/**
 * Starts a command whose stdin stays open and resolves once it runs, after
 * writing the request's `stdin`, if any (`spawnCommands`). Its run budget is
 * the request's `timeoutMs`, else `runBudgetMs`; `op.timeoutMs` (default
 * `lookupMs`) bounds only the start; aborting `op.signal` kills it.
 */
export const { spawn } = spawnCommands<KubernetesContext, CommandPlan, string>({
  plan: (context, request) => planCommand(context.options, request, true),
  startTimeoutMs: (context) => context.options.timeouts.lookupMs,
  start: (context, plan, { sandboxId, instance }) => {
    const {
      signal: _startSignal,
      provider: _provider,
      ...options
    } = commandOptions(sandboxId, plan, new AbortController().signal);
    return {
      command: kubernetesCommand(context, context.plane(), sandboxId, instance, plan),
      ...options,
      ...(plan.stdin !== undefined ? { firstWrite: plan.stdin } : {}),
    };
  },
});
