import type { ExecRequest, OpOptions, SandboxProcess } from "@sandport/core";
import { spawnCommand } from "@sandport/core/adapter";
import { planCommand } from "./command-plan.js";
import type { E2BContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { lostOutput } from "./process-control.js";
import { e2bStdin } from "./process-stdin.js";
import { e2bCommand } from "./vendor-command.js";

/**
 * Starts a command whose stdin stays open (`commands.run` with `stdin: true`)
 * and resolves once it runs, after writing the request's `stdin`, if any
 * (`spawnCommand`). The request is planned as for `exec` (argv quoted,
 * `shell` in `sh -c`, a per-command marker so a kill reaches its
 * descendants). Its run budget is the request's `timeoutMs`, else
 * `runBudgetMs`; `op.timeoutMs` (default `lookupMs`) bounds only the start;
 * aborting `op.signal` kills the command, before or after the start.
 */
export async function spawn(
  context: E2BContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<SandboxProcess> {
  const plan = planCommand(context.options, request, true);
  return context.onInstance(handle, op, "spawn", context.options.timeouts.lookupMs, (sandbox, call, sandboxId) => {
    context.known.markCommandRun(sandboxId);
    return spawnCommand(e2bCommand(context, sandboxId, sandbox, plan, true), {
      provider: PROVIDER,
      timeoutMs: plan.timeoutMs,
      maxOutputBytes: plan.maxOutputBytes,
      // The call's signal bounds the start only: once the command runs, op.signal and kill() stop it.
      signal: call.signal,
      lostOutput: (error, pid) => lostOutput(sandboxId, pid, error),
      stdin: (pid) => e2bStdin(context, sandbox, pid as number),
      ...(op?.signal ? { callerSignal: op.signal } : {}),
      ...(plan.firstWrite !== undefined ? { firstWrite: plan.firstWrite } : {}),
    });
  });
}
