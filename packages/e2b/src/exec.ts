import type { ExecEvent, ExecRequest, ExecResult, OpOptions } from "@sandport/core";
import { execEventStream } from "@sandport/core/adapter";
import { planCommand } from "./command-plan.js";
import type { E2BContext } from "./context.js";
import { runCommand } from "./vendor-command.js";

/**
 * Runs a command to completion; non-zero exits, timeouts and truncation are
 * results. The call's deadline is the command's run budget plus `execGraceMs`,
 * so the command's own kill always comes first.
 */
export function exec(context: E2BContext, handle: unknown, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
  return runPlanned(context, handle, request, op, "exec");
}

/** Runs a command and yields `started`, output chunks as they arrive, then `exited`. */
export function execStream(
  context: E2BContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): AsyncGenerator<ExecEvent> {
  return execEventStream((emit, stop) => runPlanned(context, handle, request, op, "execStream", stop, emit));
}

async function runPlanned(
  context: E2BContext,
  handle: unknown,
  request: ExecRequest,
  op: OpOptions | undefined,
  operation: "exec" | "execStream",
  stop?: AbortSignal,
  emit?: (event: ExecEvent) => void,
): Promise<ExecResult> {
  const plan = planCommand(context.options, request);
  const deadlineMs = plan.timeoutMs + context.options.timeouts.execGraceMs;
  return context.onInstance(handle, op, operation, deadlineMs, (sandbox, call, sandboxId) => {
    context.known.markCommandRun(sandboxId);
    const signal = stop ? AbortSignal.any([call.signal, stop]) : call.signal;
    return runCommand(context, sandboxId, sandbox, plan, signal, emit);
  });
}
