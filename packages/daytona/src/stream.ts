import type { ExecEvent, ExecRequest, OpOptions } from "@sandport/core";
import { execEventStream } from "@sandport/core/adapter";
import type { DaytonaContext } from "./context.js";
import { planSession, SessionRun } from "./session-run.js";

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
    const plan = planSession(context, request, false);
    const deadlineMs = plan.timeoutMs + context.options.timeouts.execGraceMs;
    return context.onSandbox(handle, op, "execStream", deadlineMs, async (sandbox, call, sandboxId) => {
      context.known.markCommandRun(sandboxId);
      const run = await SessionRun.start(context, sandbox, sandboxId, plan, call);
      const stop = () => void run.kill();
      for (const signal of [call.signal, consumerGone]) {
        if (signal.aborted) stop();
        else signal.addEventListener("abort", stop, { once: true });
      }
      emit({ type: "started" });
      return run.follow(emit);
    });
  });
}
