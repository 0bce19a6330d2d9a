import type { ExecEvent } from "../port/exec-event.js";
import type { ExecResult } from "../port/exec-result.js";
import { EventQueue } from "./event-queue.js";

/**
 * How a command is run for {@link commandEvents}: it reports `started` and
 * output events through `emit` as they happen, resolves with the result, and
 * stops the command when `stop` fires.
 */
export type EventedRun = (stop: AbortSignal, emit: (event: ExecEvent) => void) => Promise<ExecResult>;

/**
 * `execStream` from a run that reports events by callback: yields what
 * `run` emits, then `exited` with its result (or throws its failure). When
 * the consumer leaves the loop early, `stop` fires, so the command does not
 * run on unread.
 */
export async function* commandEvents(run: EventedRun): AsyncGenerator<ExecEvent> {
  const events = new EventQueue<ExecEvent>();
  const consumer = new AbortController();
  const ran = run(consumer.signal, (event) => events.push(event));
  ran.then(
    (result) => {
      events.push({ type: "exited", result });
      events.end();
    },
    (error: unknown) => events.fail(error),
  );
  try {
    yield* events;
  } finally {
    consumer.abort(new Error("the consumer stopped reading the stream"));
  }
}
