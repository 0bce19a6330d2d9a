import type { ExecRequest, OpOptions, SandboxProcess } from "@sandport/core";
import { spawnCommand } from "@sandport/core/adapter";
import { planCommand } from "./command-plan.js";
import type { DaytonaContext } from "./context.js";
import { engineOptions } from "./exec.js";
import { sessionRun } from "./session-run.js";

/**
 * Starts a command whose stdin stays open, in its own Daytona session, and
 * resolves once it runs (`spawnCommand`). Daytona's session input has no end
 * of file, so the command reads its stdin from a relay in the sandbox that
 * decodes what `write` sends (base64 lines, through `sendSessionCommandInput`,
 * never echoed into the output) and closes the command's stdin on
 * `closeStdin`. `op.timeoutMs` bounds the start; the request's `timeoutMs`
 * (else `runBudgetMs`) the run; aborting `op.signal` at any time kills it.
 */
export async function spawn(
  context: DaytonaContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<SandboxProcess> {
  const plan = planCommand(context.options, request, "interactive");
  return context.onInstance(handle, op, "spawn", context.options.timeouts.lookupMs, (sandbox, call, sandboxId) => {
    context.known.markCommandRun(sandboxId);
    const run = sessionRun(context, sandbox, sandboxId, plan, call);
    return spawnCommand(run.command, {
      // The call's signal bounds the start only: once the command runs, op.signal and kill() stop it.
      ...engineOptions(plan, call.signal),
      stdin: run.stdin,
      ...(op?.signal ? { callerSignal: op.signal } : {}),
      ...(plan.firstWrite !== undefined ? { firstWrite: plan.firstWrite } : {}),
    });
  });
}
