import type { ExecEvent } from "../port/exec-event.js";
import type { ExecResult } from "../port/exec-result.js";
import { EventQueue } from "./event-queue.js";

/**
 * An `execStream` from a run: `run` starts the command and emits its
 * `started` and output events, and resolves with the result, which becomes
 * the `exited` event (a rejection fails the stream). `stop` fires when the
 * consumer leaves the loop early, so `run` can kill the command.
 */
export async function* eventStream(
  run: (emit: (event: ExecEvent) => void, stop: AbortSignal) => Promise<ExecResult>,
): AsyncGenerator<ExecEvent> {
  const queue = new EventQueue<ExecEvent>();
  const consumer = new AbortController();
  let running: Promise<ExecResult>;
  try {
    running = run((event) => queue.push(event), consumer.signal);
  } catch (error) {
    running = Promise.reject(error);
  }
  running.then(
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
