import type { ExecEvent } from "../port/exec-event.js";
import type { ExecResult } from "../port/exec-result.js";
import { EventQueue } from "./event-queue.js";

/**
 * How `execStream` runs its command: `emit` takes `started` and output events
 * as they happen; aborting `stop` must stop the command (the consumer left).
 * Resolves with the result, or rejects when the command could not run.
 */
export type StreamedRun = (emit: (event: ExecEvent) => void, stop: AbortSignal) => Promise<ExecResult>;

/**
 * An `execStream` from a run that reports events through a callback: the
 * events `run` emits, in order, then `exited` with its result; a failure is
 * thrown after the events queued before it. Leaving the loop early aborts
 * `stop`, so the run can kill its command. `run` starts on the first `next()`.
 */
export async function* execEventStream(run: StreamedRun): AsyncGenerator<ExecEvent> {
  const queue = new EventQueue<ExecEvent>();
  const consumer = new AbortController();
  run((event) => queue.push(event), consumer.signal).then(
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
