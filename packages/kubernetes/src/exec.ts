import { isMissingCwdExit } from "@sandport/core";
import { execCommands, missingCwd, runCommandToEnd } from "@sandport/core/adapter";
import { type CommandPlan, planCommand } from "./command-plan.js";
import type { KubernetesContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { commandOptions, kubernetesCommand } from "./vendor-command.js";

/**
 * `exec` runs a command to completion (non-zero exits, the run budget and
 * the output cap are results); `execStream` yields `started`, output chunks
 * as they arrive (raw bytes), then `exited`. Both on the kit's engine over
 * the runtime's data plane, in the claim's pod (`instance` is its name); a
 * working directory whose `cd` fails is `NOT_FOUND`, nothing run.
 */
export const { exec, execStream } = execCommands<KubernetesContext, CommandPlan, string>({
  plan: (context, request) => planCommand(context.options, request),
  run: async (context, plan, { sandboxId, instance, signal, emit }) => {
    const command = kubernetesCommand(context, context.plane(), sandboxId, instance, plan);
    const result = await runCommandToEnd(command, {
      ...commandOptions(sandboxId, plan, signal),
      ...(emit ? { emit } : {}),
    });
    if (isMissingCwdExit(result.exitCode, result.stderr)) throw missingCwd(PROVIDER, plan.cwd, { sandboxId });
    return result;
  },
});
