import type { ExecRequest, OpOptions, SandboxProcess } from "@sandport/core";
import { spawnCommand } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { planCommand } from "./exec.js";
import { commandOptions, modalCommand } from "./vendor-command.js";

/**
 * Starts a command whose stdin stays open and resolves once Modal accepted it
 * (`spawnCommand`, see `SandboxProcess`). Its run budget is the request's
 * `timeoutMs`, else `runBudgetMs`; `op.timeoutMs` bounds only the start
 * (`launchMs` by default); aborting `op.signal`, before or after the start,
 * kills it. A `request.stdin` is written first; stdin then stays open for `write`.
 */
export async function spawn(
  context: ModalContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<SandboxProcess> {
  const plan = planCommand(context.options, request, true);
  return context.onInstance(handle, op, "spawn", context.options.timeouts.launchMs, (sandbox, call, sandboxId) => {
    context.known.markCommandRun(sandboxId);
    const command = modalCommand(sandbox, plan);
    return spawnCommand(command, {
      // The call's signal bounds the start only: once the command runs, op.signal and kill() stop it.
      ...commandOptions(plan, sandboxId, call.signal),
      stdin: () => command.stdin,
      ...(op?.signal ? { callerSignal: op.signal } : {}),
      ...(plan.stdin !== undefined ? { firstWrite: plan.stdin } : {}),
    });
  });
}
