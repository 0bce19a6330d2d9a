import type { ExecRequest, OpOptions, SandboxProcess } from "@sandport/core";
import { spawnCommand } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { commandPlan, planRequest } from "./exec.js";
import { microsandboxCommand, runOptions } from "./vendor-command.js";

/**
 * Starts a command whose stdin stays open (one agent connection, stdin a
 * pipe) and resolves once it runs, after writing the request's `stdin`, if
 * any (`spawnCommand`). The request's `timeoutMs` (else the run budget)
 * bounds the run; `op.timeoutMs` bounds only the start; aborting `op.signal`
 * at any time kills it, as does `kill()` or `destroy`.
 */
export async function spawn(
  context: MicrosandboxContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<SandboxProcess> {
  const planned = planRequest(context.options, request);
  const { lookupMs } = context.options.timeouts;
  return context.onInstance(handle, op, "spawn", lookupMs, (sandbox, call, name) => {
    context.known.markCommandRun(name);
    const plan = { ...commandPlan(context, name, planned), stdin: undefined };
    const command = microsandboxCommand(name, sandbox, plan, true);
    return spawnCommand(command, {
      // The call's signal bounds the start only: once the command runs, op.signal and kill() stop it.
      ...runOptions(plan, call.signal),
      stdin: () => command.stdin,
      ...(op?.signal ? { callerSignal: op.signal } : {}),
      ...(planned.stdin !== undefined ? { firstWrite: planned.stdin } : {}),
    });
  });
}
