/**
 * What the agent does beyond running commands to their end, in one place:
 *
 * - Standard input. On a backend with `spawn` (the default `LocalRuntime`
 *   has it) stdin is a live pipe ({@link PipedStdin}): what the client sends
 *   is written as it arrives and an empty chunk closes it, as under agentd,
 *   which gives every non-PTY command a pipe; a command that is never sent
 *   EOF keeps reading. On a backend without `spawn`, stdin is collected up
 *   front ({@link LiveStdin}); a later write is refused with
 *   `core.exec.stdin.error` and logged as `AGENT core.exec.stdin`.
 * - PTYs (`tty` on a request, `core.exec.resize`) and the agent's TCP tunnels
 *   (`core.tcp.*`, behind published ports and SSH) are refused and logged.
 *
 * @module
 */

import type { SandboxProcess } from "@sandport/core";
import { FLAG_TERMINAL } from "./agent-codec.js";
import type { AgentConnection } from "./agent-connection.js";
import type { MicrosandboxContext } from "./context.js";

/** Log an agent feature the emulator does not emulate (listed in `unknownRoutes` as `AGENT <what>`). */
export function notEmulated(context: MicrosandboxContext, what: string): void {
  context.log.addUnknown("AGENT", what);
}

/** Answer a message type the emulator does not serve with agentd's `core.error`. */
export function refuseMessage(
  context: MicrosandboxContext,
  connection: AgentConnection,
  id: number,
  type: string,
): void {
  notEmulated(context, type);
  connection.send(id, FLAG_TERMINAL, "core.error", {
    kind: "unsupported_message_type",
    message: `${type} is not emulated`,
    offending_type: type,
  });
}

/** `core.exec.stdin.error`: the command's stdin is gone (agentd's EPIPE). */
function sendBrokenPipe(connection: AgentConnection, id: number, message: string): void {
  connection.send(id, 0, "core.exec.stdin.error", { errno: 32, errno_name: "EPIPE", message });
}

/**
 * Standard input of a command started with the backend's `spawn`: chunks
 * that arrive before the command runs wait, then every chunk is written in
 * order; an empty chunk closes stdin. A write the command can no longer take
 * (it exited) is answered `core.exec.stdin.error`.
 */
export class PipedStdin {
  readonly #connection: AgentConnection;
  readonly #id: number;
  readonly #waiting: Uint8Array[] = [];
  #process: SandboxProcess | undefined;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;
  #ended = false;

  constructor(connection: AgentConnection, id: number) {
    this.#connection = connection;
    this.#id = id;
  }

  /** A `core.exec.stdin` chunk; empty means EOF. */
  receive(data: Uint8Array): void {
    if (this.#closed) return;
    if (data.length === 0) this.#closed = true;
    if (this.#process) this.#forward(this.#process, data);
    else this.#waiting.push(Buffer.from(data));
  }

  /** The command runs: write what waited, and from now on every chunk as it arrives. */
  attach(process: SandboxProcess): void {
    this.#process = process;
    for (const data of this.#waiting.splice(0)) this.#forward(process, data);
  }

  /** The command has ended: stdin still unwritten is dropped. */
  ended(): void {
    this.#ended = true;
  }

  #forward(process: SandboxProcess, data: Uint8Array): void {
    this.#writing = this.#writing.then(async () => {
      try {
        if (data.length === 0) await process.closeStdin();
        else await process.write(data);
      } catch (error) {
        if (this.#ended) return;
        sendBrokenPipe(this.#connection, this.#id, error instanceof Error ? error.message : String(error));
      }
    });
  }
}

/**
 * Standard input of one exec session on a backend without `spawn`. Until the command starts, data is
 * collected; the command starts once stdin is closed (an empty chunk), or
 * when `graceMs` pass without stdin traffic (agentd cannot tell a command
 * without stdin from one whose stdin is late, and neither can the emulator).
 */
export class LiveStdin {
  readonly #context: MicrosandboxContext;
  readonly #connection: AgentConnection;
  readonly #id: number;
  readonly #graceMs: number;
  readonly #chunks: Buffer[] = [];
  #started = false;
  #wake: (() => void) | undefined;
  #closed = false;

  constructor(context: MicrosandboxContext, connection: AgentConnection, id: number, graceMs: number) {
    this.#context = context;
    this.#connection = connection;
    this.#id = id;
    this.#graceMs = graceMs;
  }

  /** A `core.exec.stdin` chunk; empty means EOF. */
  receive(data: Uint8Array): void {
    if (!this.#started) {
      if (data.length === 0) this.#closed = true;
      else this.#chunks.push(Buffer.from(data));
      this.#wake?.();
      return;
    }
    if (data.length === 0) return;
    notEmulated(this.#context, "core.exec.stdin");
    sendBrokenPipe(
      this.#connection,
      this.#id,
      "stdin to a running command needs a backend with spawn: the command's stdin was closed when it started",
    );
  }

  /** Wait for the stdin given up front; resolves with its bytes, and from then on stdin counts as live. */
  async collect(signal: AbortSignal): Promise<Buffer> {
    while (!this.#closed && !signal.aborted) {
      const received = await new Promise<boolean>((resolve) => {
        const finish = (value: boolean) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          this.#wake = undefined;
          resolve(value);
        };
        const timer = setTimeout(() => finish(false), this.#graceMs);
        const onAbort = () => finish(false);
        signal.addEventListener("abort", onAbort, { once: true });
        this.#wake = () => finish(true);
      });
      if (!received) break;
    }
    this.#started = true;
    return Buffer.concat(this.#chunks);
  }
}
