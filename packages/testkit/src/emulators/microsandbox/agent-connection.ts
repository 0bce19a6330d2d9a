import type { Disruption } from "../harness/exchange.js";
import type { WebSocketConnection } from "../harness/websocket.js";
import { type AgentCodec, FLAG_TERMINAL } from "./agent-codec.js";

/**
 * The server end of one agent WebSocket: sends framed messages (one per
 * binary WebSocket message) and applies the fault layer's disruption.
 */
export class AgentConnection {
  readonly #socket: WebSocketConnection;
  readonly #codec: AgentCodec;
  readonly #disruption: Disruption | undefined;
  #sent = 0;
  #closed = false;

  constructor(socket: WebSocketConnection, codec: AgentCodec, disruption: Disruption | undefined) {
    this.#socket = socket;
    this.#codec = codec;
    this.#disruption = disruption;
    socket.signal.addEventListener(
      "abort",
      () => {
        this.#closed = true;
      },
      { once: true },
    );
  }

  /** True once the connection is gone (closed by the client, cut by a fault, or the emulator stopping). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Send the relay handshake: the client's id range, then agentd's `core.ready`. Not counted as a message. */
  sendHandshake(idStart: number, idEndExclusive: number, ready: unknown): void {
    if (this.#closed) return;
    const range = Buffer.alloc(8);
    range.writeUInt32BE(idStart, 0);
    range.writeUInt32BE(idEndExclusive, 4);
    const frame = this.#codec.encode(0, 0, "core.ready", ready);
    this.#socket.send(Buffer.concat([range, frame]));
  }

  /**
   * Send one message. A terminal message under a `lost-response` fault, or
   * any message past a `drop-mid-stream` fault's count, destroys the
   * connection instead (the work behind it is already done).
   */
  send(id: number, flags: number, type: string, payload: unknown): void {
    if (this.#closed) return;
    const disruption = this.#disruption;
    if (disruption?.kind === "lost-response" && (flags & FLAG_TERMINAL) !== 0) {
      this.destroy();
      return;
    }
    if (disruption?.kind === "cut" && this.#sent >= disruption.afterEvents) {
      this.destroy();
      return;
    }
    this.#socket.send(this.#codec.encode(id, flags, type, payload));
    this.#sent += 1;
  }

  /** Tear the connection down without a close handshake. */
  destroy(): void {
    this.#closed = true;
    this.#socket.destroy();
  }
}
