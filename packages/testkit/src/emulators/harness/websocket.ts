/**
 * A small server side of RFC 6455 WebSockets, enough for an emulator to
 * speak to a vendor SDK over an upgraded HTTP connection: the handshake,
 * unmasked outgoing frames (one per message), the client's messages
 * (fragmented ones reassembled) and the control frames (close, ping, pong).
 * No extensions: permessage-deflate is never negotiated. Every emulator uses
 * this one implementation, through `exchange.acceptWebSocket()`, so the
 * testkit needs no WebSocket library.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Duplex } from "node:stream";

/** The fixed GUID RFC 6455 §1.3 appends to the client's key. */
const HANDSHAKE_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** How long to wait for the client's close frame before dropping the connection. */
const CLOSE_TIMEOUT_MS = 2_000;
/**
 * Largest client message accepted by default (the connection is failed with
 * 1009 beyond it). File uploads over an agent protocol arrive in chunks of a
 * few MiB, so this leaves room.
 */
const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const OPCODE_CONTINUATION = 0x0;
const OPCODE_TEXT = 0x1;
const OPCODE_BINARY = 0x2;
const OPCODE_CLOSE = 0x8;
const OPCODE_PING = 0x9;
const OPCODE_PONG = 0xa;

/** The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key`. */
export function webSocketAccept(key: string): string {
  return createHash("sha1")
    .update(key + HANDSHAKE_GUID)
    .digest("base64");
}

/** Options of {@link WebSocketConnection.open}. */
export interface WebSocketOpenOptions {
  /** The subprotocol to confirm in `Sec-WebSocket-Protocol`, when the client offered one. */
  readonly protocol?: string;
  /** Destroy the connection after this many sent messages (the `drop-mid-stream` fault). */
  readonly cutAfterMessages?: number;
  /** Largest message (all its fragments together) a client may send, in bytes. Default: 64 MiB. */
  readonly maxMessageBytes?: number;
}

/** One accepted WebSocket. Messages go out in order; `close` starts the closing handshake. */
export class WebSocketConnection {
  readonly #socket: Duplex;
  readonly #closedController = new AbortController();
  readonly #cutAfter: number;
  readonly #maxMessageBytes: number;
  #sent = 0;
  #closing = false;
  #buffer: Buffer = Buffer.alloc(0);
  /** Chunks received while a frame is still incomplete, joined only once it can be: a large frame is copied once. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The size of the incomplete frame at the start of the buffer, once its header is in (0: unknown). */
  #needed = 0;
  /** The fragments of a client message still being received, with its opcode. */
  #fragments: { opcode: number; parts: Buffer[]; size: number } | undefined;
  /** False once the client's close frame arrived or the connection was failed: later bytes are ignored. */
  #receiving = true;
  #closeTimer: NodeJS.Timeout | undefined;
  /** Called with each complete text or binary message the client sends. */
  onMessage: ((data: Buffer, binary: boolean) => void) | undefined;

  private constructor(socket: Duplex, cutAfter: number, maxMessageBytes: number) {
    this.#socket = socket;
    this.#cutAfter = cutAfter;
    this.#maxMessageBytes = maxMessageBytes;
    // Small frames go out at once: a client waiting for an answer must not wait out Nagle's algorithm.
    (socket as Duplex & { setNoDelay?: (noDelay: boolean) => void }).setNoDelay?.(true);
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("close", () => this.#finish());
    socket.on("error", () => this.#finish());
  }

  /**
   * Answer the upgrade request with `101 Switching Protocols` and return the
   * connection. `head` is whatever the client sent after its request headers.
   */
  static open(socket: Duplex, key: string, head: Buffer, options: WebSocketOpenOptions = {}): WebSocketConnection {
    const lines = [
      "HTTP/1.1 101 Switching Protocols",
      "Upgrade: websocket",
      "Connection: Upgrade",
      `Sec-WebSocket-Accept: ${webSocketAccept(key)}`,
    ];
    if (options.protocol !== undefined) lines.push(`Sec-WebSocket-Protocol: ${options.protocol}`);
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    const connection = new WebSocketConnection(
      socket,
      options.cutAfterMessages ?? Number.POSITIVE_INFINITY,
      options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    );
    if (connection.#cutAfter === 0) connection.#cut();
    if (head.length > 0) connection.#receive(head);
    return connection;
  }

  /** True once the connection is closing or closed; later sends are dropped. */
  get closed(): boolean {
    return this.#closing || this.#closedController.signal.aborted;
  }

  /** Aborted once the underlying connection is gone. */
  get signal(): AbortSignal {
    return this.#closedController.signal;
  }

  /** Send one message: bytes as a binary frame, a string as a text frame. */
  send(data: Uint8Array | string): void {
    if (this.closed) return;
    const binary = typeof data !== "string";
    this.#socket.write(encodeFrame(binary ? OPCODE_BINARY : OPCODE_TEXT, Buffer.from(data)));
    this.#sent += 1;
    if (this.#sent >= this.#cutAfter) this.#cut();
  }

  /**
   * Send a ping (not counted as a message). Besides keeping a connection
   * alive, an answer the client must acknowledge makes its kernel ACK the
   * frames it just sent, so its next small frames are not held back.
   */
  ping(data: Uint8Array | string = ""): void {
    if (this.closed) return;
    this.#socket.write(encodeFrame(OPCODE_PING, Buffer.from(data)));
  }

  /** Start the closing handshake; the connection ends once the client answers (or after a short wait). */
  close(code = 1000, reason = ""): void {
    if (this.closed) return;
    this.#closing = true;
    if (this.#cutAfter !== Number.POSITIVE_INFINITY) {
      // A cut connection never closes cleanly, even when it sent fewer messages than the cut point.
      this.#cut();
      return;
    }
    this.#socket.write(encodeFrame(OPCODE_CLOSE, closePayload(code, reason)));
    this.#closeTimer = setTimeout(() => this.#socket.destroy(), CLOSE_TIMEOUT_MS);
    this.#closeTimer.unref();
  }

  /** Drop the connection without a closing handshake. */
  destroy(): void {
    this.#socket.destroy();
    this.#finish();
  }

  #cut(): void {
    this.#closing = true;
    // Let the bytes already written reach the client, then kill the connection.
    setImmediate(() => this.destroy());
  }

  #finish(): void {
    clearTimeout(this.#closeTimer);
    if (!this.#closedController.signal.aborted) this.#closedController.abort(new Error("websocket closed"));
  }

  #receive(chunk: Buffer): void {
    if (this.#buffer.length + this.#pendingBytes + chunk.length < this.#needed) {
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      return;
    }
    this.#buffer =
      this.#buffer.length === 0 && this.#pending.length === 0
        ? chunk
        : Buffer.concat([this.#buffer, ...this.#pending, chunk]);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#needed = 0;
    for (;;) {
      if (!this.#receiving) return;
      const frame = decodeFrame(this.#buffer, this.#maxMessageBytes);
      if (frame === undefined) {
        this.#needed = frameSize(this.#buffer) ?? 0;
        return;
      }
      if (frame === "too-large") {
        this.#fail(1009);
        return;
      }
      this.#buffer = this.#buffer.subarray(frame.length);
      if (frame.opcode >= OPCODE_CLOSE) {
        // Control frames may arrive between the fragments of a message, and are never fragmented.
        if (!frame.final) {
          this.#fail(1002);
          return;
        }
        this.#handle(frame.opcode, frame.payload);
        continue;
      }
      if (!this.#assemble(frame)) return;
    }
  }

  /** Add a data frame to the message being received; hands a complete message on. False when the connection failed. */
  #assemble(frame: DecodedFrame): boolean {
    const pending = this.#fragments;
    if (frame.opcode === OPCODE_CONTINUATION) {
      if (!pending) {
        this.#fail(1002);
        return false;
      }
      pending.parts.push(frame.payload);
      pending.size += frame.payload.length;
      if (pending.size > this.#maxMessageBytes) {
        this.#fail(1009);
        return false;
      }
      if (!frame.final) return true;
      this.#fragments = undefined;
      this.#handle(pending.opcode, Buffer.concat(pending.parts));
      return true;
    }
    if (pending) {
      // A new message before the last one was finished.
      this.#fail(1002);
      return false;
    }
    if (frame.final) this.#handle(frame.opcode, frame.payload);
    else this.#fragments = { opcode: frame.opcode, parts: [frame.payload], size: frame.payload.length };
    return true;
  }

  #handle(opcode: number, payload: Buffer): void {
    switch (opcode) {
      case OPCODE_CLOSE:
        this.#receiving = false;
        if (!this.#closing) {
          this.#closing = true;
          this.#socket.write(encodeFrame(OPCODE_CLOSE, payload.subarray(0, 2)));
        }
        this.#socket.end();
        return;
      case OPCODE_PING:
        if (!this.closed) this.#socket.write(encodeFrame(OPCODE_PONG, payload));
        return;
      case OPCODE_PONG:
        return;
      case OPCODE_TEXT:
      case OPCODE_BINARY:
        this.onMessage?.(payload, opcode === OPCODE_BINARY);
        return;
      default:
        this.#fail(1002);
    }
  }

  #fail(code: number): void {
    this.#receiving = false;
    if (!this.closed) this.#socket.write(encodeFrame(OPCODE_CLOSE, closePayload(code, "")));
    this.#closing = true;
    this.#socket.end();
  }
}

function closePayload(code: number, reason: string): Buffer {
  const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
  payload.writeUInt16BE(code, 0);
  payload.write(reason, 2);
  return payload;
}

/** One unmasked, final server frame. */
function encodeFrame(opcode: number, payload: Buffer): Buffer {
  let header: Buffer;
  if (payload.length < 126) {
    header = Buffer.from([0x80 | opcode, payload.length]);
  } else if (payload.length <= 0xffff) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(payload.length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  return Buffer.concat([header, payload]);
}

interface DecodedFrame {
  readonly final: boolean;
  readonly opcode: number;
  readonly payload: Buffer;
  /** Bytes the frame occupied in the buffer. */
  readonly length: number;
}

/** The first complete client frame in `buffer`, `undefined` when more bytes are needed. */
/** The whole size of the frame starting `buffer`, once its header is there. */
function frameSize(buffer: Buffer): number | undefined {
  if (buffer.length < 2) return undefined;
  const masked = (buffer[1]! & 0x80) !== 0 ? 4 : 0;
  const length = buffer[1]! & 0x7f;
  if (length < 126) return 2 + masked + length;
  if (length === 126) return buffer.length < 4 ? undefined : 4 + masked + buffer.readUInt16BE(2);
  return buffer.length < 10 ? undefined : 10 + masked + Number(buffer.readBigUInt64BE(2));
}

function decodeFrame(buffer: Buffer, maxBytes: number): DecodedFrame | "too-large" | undefined {
  if (buffer.length < 2) return undefined;
  const final = (buffer[0]! & 0x80) !== 0;
  const opcode = buffer[0]! & 0x0f;
  const masked = (buffer[1]! & 0x80) !== 0;
  let length = buffer[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    const long = buffer.readBigUInt64BE(2);
    if (long > BigInt(maxBytes)) return "too-large";
    length = Number(long);
    offset = 10;
  }
  if (length > maxBytes) return "too-large";
  const maskLength = masked ? 4 : 0;
  if (buffer.length < offset + maskLength + length) return undefined;
  const payload = Buffer.from(buffer.subarray(offset + maskLength, offset + maskLength + length));
  if (masked) {
    const mask = buffer.subarray(offset, offset + 4);
    for (let index = 0; index < payload.length; index++) payload[index] = payload[index]! ^ mask[index % 4]!;
  }
  return { final, opcode, payload, length: offset + maskLength + length };
}
