import { type ExecEvent, type ExecRequest, type ExecResult, type OpOptions, SandportError } from "@sandport/core";
import { type CommandRunOptions, execEventStream, lostOutput, runCommandToEnd } from "@sandport/core/adapter";
import { type CommandPlan, planCommand } from "./command-plan.js";
import type { DaytonaContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { sessionRun } from "./session-run.js";
import { executeCommandRun } from "./vendor-command.js";

/**
 * Runs a command to completion with `executeCommand` (one request): stdout
 * and stderr come back merged, as Daytona runs it. On the kit's engine:
 * non-zero exits, the timeout (`timedOut`) and the output cap (`truncated`)
 * are results; a timeout, an abort or a deadline kills the command and its
 * descendants by their marker. The call's deadline is the run budget plus `execGraceMs`.
 */
export async function exec(
  context: DaytonaContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<ExecResult> {
  const plan = planCommand(context.options, request, "exec");
  const deadlineMs = plan.timeoutMs + context.options.timeouts.execGraceMs;
  return context.onInstance(handle, op, "exec", deadlineMs, (sandbox, call, sandboxId) => {
    context.known.markCommandRun(sandboxId);
    return runCommandToEnd(executeCommandRun(sandbox, sandboxId, plan, call), engineOptions(plan, call.signal));
  });
}

/**
 * Runs a command in its own Daytona session and yields `started`, output
 * chunks as they arrive over the SDK's log WebSocket, then `exited`. Output is
 * merged (stderr written into stdout where the command runs), so it arrives
 * in the order it was written. The timeout, an abort or the consumer leaving
 * the loop kills the command and its descendants.
 */
export function execStream(
  context: DaytonaContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): AsyncGenerator<ExecEvent> {
  return execEventStream(async (emit, consumerGone) => {
    const plan = planCommand(context.options, request, "session");
    const deadlineMs = plan.timeoutMs + context.options.timeouts.execGraceMs;
    return context.onInstance(handle, op, "execStream", deadlineMs, (sandbox, call, sandboxId) => {
      context.known.markCommandRun(sandboxId);
      const run = sessionRun(context, sandbox, sandboxId, plan, call);
      const signal = AbortSignal.any([call.signal, consumerGone]);
      return runCommandToEnd(run.command, { ...engineOptions(plan, signal), emit });
    });
  });
}

/** The engine's options for a plan; a broken stream that Daytona's own error already names is passed on as it is. */
export function engineOptions(plan: CommandPlan, signal: AbortSignal): CommandRunOptions {
  return {
    provider: PROVIDER,
    timeoutMs: plan.timeoutMs,
    maxOutputBytes: plan.maxOutputBytes,
    signal,
    lostOutput: (error, pid) => (SandportError.isInstance(error) ? error : lostOutput(PROVIDER, error, pid)),
  };
}
