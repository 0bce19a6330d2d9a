/** Streaming a command as NDJSON (`application/x-ndjson`): its log lines from the first, then how it ended. */

import type { Exchange, ResponseStream } from "../harness/exchange.js";
import type { CommandEvent, EmulatedCommand } from "./command-table.js";
import { commandJson } from "./payloads.js";

/** Content type of every streamed answer; the SDK requires exactly this value. */
export const NDJSON = "application/x-ndjson";

/** What {@link streamCommand} writes besides the log lines. */
export interface StreamShape {
  /** Write `{ "command": ... }` with `exitCode: null` first (the run-and-wait answer). */
  readonly leadWithCommand: boolean;
  /** Write the `{ "stream", "data" }` log lines. */
  readonly logs: boolean;
  /** Write `{ "command": ... }` with the exit code last (the run-and-wait answer). */
  readonly endWithCommand: boolean;
}

/**
 * Answer with the command's NDJSON stream, from its first line (earlier lines
 * are replayed) until it ends, and resolve once the stream is over or the
 * client went away. A command whose session stopped under it ends the stream
 * with `{ "stream": "error", "data": { code, message } }`, which the SDK raises
 * as a `StreamError`.
 */
export function streamCommand(exchange: Exchange, command: EmulatedCommand, shape: StreamShape): Promise<void> {
  const stream = exchange.stream(200, { "content-type": NDJSON, "cache-control": "no-cache" });
  const send = (value: unknown) => stream.write(`${JSON.stringify(value)}\n`);
  if (shape.leadWithCommand) send({ command: { ...commandJson(command), exitCode: null } });
  // Replay and subscribe in one synchronous step, so no line is missed or sent twice.
  if (shape.logs) for (const line of command.lines) send(line);
  return new Promise<void>((resolve) => {
    const finish = (event: CommandEvent) => {
      if (event.kind === "log") {
        if (shape.logs) send(event.line);
        return;
      }
      if (event.kind === "failure") send({ stream: "error", data: event.failure });
      else if (shape.endWithCommand) send({ command: commandJson(command) });
      close();
    };
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      exchange.signal.removeEventListener("abort", close);
      endStream(stream);
      resolve();
    };
    const unsubscribe = command.subscribe(finish);
    exchange.signal.addEventListener("abort", close, { once: true });
    if (exchange.signal.aborted) close();
    else if (command.ended) finish(command.failure ? { kind: "failure", failure: command.failure } : { kind: "exit" });
  });
}

function endStream(stream: ResponseStream): void {
  if (!stream.closed) stream.end();
}
