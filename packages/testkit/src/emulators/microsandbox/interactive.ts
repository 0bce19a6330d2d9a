/**
 * Everything that needs an interactive backend, in one place. The port runs a
 * command with its standard input given up front and has no method for
 * writing to a running process or for reaching a port inside a sandbox, so:
 *
 * - Standard input that arrives with the request (the SDK's `stdinBytes`,
 *   sent right after `core.exec.request` and closed with an empty chunk) is
 *   collected and handed to the backend up front. Stdin written to a command
 *   that is already running (`ExecHandle.takeStdin()` writes after the start)
 *   is answered `core.exec.stdin.error` (EPIPE: the command's stdin was closed
 *   when it started) and logged as the unknown route `AGENT core.exec.stdin`.
 * - PTYs (`tty` on a request, `core.exec.resize`) and the agent's TCP tunnels
 *   (`core.tcp.*`, behind published ports and SSH) are refused and logged.
 *
 * When the port gains an interactive-process method, {@link LiveStdin.receive}
 * forwards late writes to it instead of refusing them; a port-endpoint method
 * would give `core.tcp.connect` a session beside the exec and fs sessions.
 *
 * @module
 */

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

/**
 * Standard input of one exec session. Until the command starts, data is
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
    this.#connection.send(this.#id, 0, "core.exec.stdin.error", {
      errno: 32,
      errno_name: "EPIPE",
      message: "stdin to a running command is not emulated: the command's stdin was closed when it started",
    });
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
