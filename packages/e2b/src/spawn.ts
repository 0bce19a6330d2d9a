import { type ExecEvent, type ExecRequest, type OpOptions, type SandboxProcess, SandportError } from "@sandport/core";
import { EventQueue } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { E2BProcess } from "./e2b-process.js";
import { planCommand } from "./exec.js";
import { startRun } from "./run-command.js";

/**
 * Starts a command whose stdin stays open (`commands.run` with `stdin: true`)
 * and resolves once it runs, after writing the request's `stdin`, if any.
 * The request is planned as for `exec` (argv quoted, `shell` in `sh -c`, a
 * per-command marker so a kill reaches its descendants). Its run budget is
 * the request's `timeoutMs`, else `runBudgetMs`, and envd enforces it;
 * `op.timeoutMs` (default `lookupMs`) bounds only the start; aborting
 * `op.signal` kills the command, before or after the start.
 */
export async function spawn(
  context: E2BContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<SandboxProcess> {
  const plan = planCommand(context.options, request, true);
  return context.onSandbox(handle, op, "spawn", context.options.timeouts.lookupMs, async (sandbox, call, sandboxId) => {
    context.known.markCommandRun(sandboxId);
    const queue = new EventQueue<ExecEvent>();
    const emit = (event: ExecEvent) => queue.push(event);
    // The call's signal bounds the start only: once the command runs, op.signal and kill() stop it.
    const run = await startRun(context, sandboxId, sandbox, plan, { signal: call.signal, emit, openStdin: true });
    const process = new E2BProcess(context, sandbox, run, queue, op?.signal);
    if (call.signal.aborted) {
      // The deadline passed as the start returned: nobody will hold this process.
      await process.kill();
      throw call.signal.reason;
    }
    if (plan.firstWrite !== undefined) await process.write(plan.firstWrite).catch(ignoreExited);
    return process;
  });
}

/** The first write to a command that already ended is lost, as it would be on a pipe. */
function ignoreExited(error: unknown): void {
  if (!SandportError.hasCode(error, "NOT_FOUND")) throw error;
}
