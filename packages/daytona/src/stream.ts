import type { ExecEvent, ExecRequest, OpOptions } from "@sandport/core";
import { EventQueue } from "@sandport/core/adapter";
import type { DaytonaContext } from "./context.js";
import { planSession, SessionRun } from "./session-run.js";

/**
 * Runs a command in its own Daytona session and yields `started`, output
 * chunks as they arrive over the SDK's log WebSocket, then `exited`. Output is
 * merged (stderr written into stdout where the command runs), so it arrives
 * in the order it was written. The timeout, an abort or the consumer leaving
 * the loop kills the command and its descendants.
 */
export async function* execStream(
  context: DaytonaContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): AsyncGenerator<ExecEvent> {
  const queue = new EventQueue<ExecEvent>();
  // Stops the command when the consumer leaves the loop early.
  const consumer = new AbortController();
  let running: SessionRun | undefined;
  const stop = () => void running?.kill();
  consumer.signal.addEventListener("abort", stop, { once: true });
  const streaming = (async () => {
    const plan = planSession(context, request, false);
    const deadlineMs = plan.timeoutMs + context.options.timeouts.execGraceMs;
    return context.onSandbox(handle, op, "execStream", deadlineMs, async (sandbox, call, sandboxId) => {
      context.markCommandRun(sandboxId);
      const run = await SessionRun.start(context, sandbox, sandboxId, plan, call);
      running = run;
      call.signal.addEventListener("abort", () => void run.kill(), { once: true });
      if (consumer.signal.aborted) void run.kill();
      queue.push({ type: "started" });
      return run.follow((event) => queue.push(event));
    });
  })();
  streaming.then(
    (result) => {
      queue.push({ type: "exited", result });
      queue.end();
    },
    (error: unknown) => queue.fail(error),
  );
  try {
    yield* queue;
  } finally {
    consumer.abort(new Error("the consumer stopped reading the stream"));
  }
}
