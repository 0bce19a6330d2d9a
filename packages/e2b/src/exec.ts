import { isMissingCwdExit } from "@sandport/core";
import { execCommands, missingCwd } from "@sandport/core/adapter";
import { type CommandPlan, planCommand } from "./command-plan.js";
import type { E2BContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { startRun } from "./vendor-command.js";

/**
 * `exec` runs a command to completion (non-zero exits, timeouts and
 * truncation are results); `execStream` yields `started`, output chunks as
 * they arrive, then `exited`. Both on the kit's engine, with a call deadline
 * of the run budget plus `execGraceMs`, so the command's own kill comes first.
 */
export const { exec, execStream } = execCommands<E2BContext, CommandPlan, E2BSandbox>({
  plan: (context, request) => planCommand(context.options, request),
  run: async (context, plan, { sandboxId, instance, signal, emit }) => {
    const result = await (await startRun(context, sandboxId, instance, plan, { signal, ...(emit ? { emit } : {}) }))
      .finished;
    // A workspace root its script could neither find nor make (`enterCwdScript`): nothing ran.
    if (plan.processCwd !== plan.cwd && isMissingCwdExit(result.exitCode, result.stderr)) {
      throw missingCwd(PROVIDER, plan.cwd, { sandboxId });
    }
    return result;
  },
});
