import type { ExecEvent } from "../port/exec-event.js";
import type { ExecResult } from "../port/exec-result.js";
import { EventQueue } from "./event-queue.js";

/**
 * Runs a command for `execStream`: `run` starts it, passes its events to
 * `emit` (`started`, then output) and resolves its result, which ends the
 * stream with `exited`; a rejection ends it with the error. `stop` fires
 * when the consumer leaves the loop early: `run` should then stop the command.
 */
export async function* execEventStream(
  run: (stop: AbortSignal, emit: (event: ExecEvent) => void) => Promise<ExecResult>,
): AsyncGenerator<ExecEvent> {
  const queue = new EventQueue<ExecEvent>();
  const consumer = new AbortController();
  run(consumer.signal, (event) => queue.push(event)).then(
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
