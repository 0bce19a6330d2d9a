import { createHash, randomBytes } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Duplex } from "node:stream";
import { KubernetesApiError, KubernetesMalformedAnswer } from "../errors.js";

/** What {@link openWebSocket} is given. */
export interface WebSocketRequest {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** Subprotocols, in the order of preference. */
  readonly protocols: readonly string[];
  readonly caPem?: string;
  readonly signal: AbortSignal;
}

/** An open client WebSocket (RFC 6455): binary messages out, whole messages in. */
export interface ClientWebSocket {
  /** The subprotocol the server chose. */
  readonly protocol: string;
  /** Sends one binary message (masked, as a client must). */
  send(data: Uint8Array): void;
  /** Sends a close frame and ends the connection. */
  close(): void;
  /**
   * Starts delivering what the server sends: each whole message to
   * `onMessage`, in order, then `onClose` once, when the connection ended (a
   * close frame, or the socket ended or broke). Until it is called nothing
   * is read, so nothing is lost: a server may answer and close before the
   * caller is ready (the bytes then wait in the socket).
   */
  listen(handlers: WebSocketHandlers): void;
}

/** Where a {@link ClientWebSocket} delivers what it receives. */
export interface WebSocketHandlers {
  /** Each whole message the server sends, in order. */
  readonly onMessage: (data: Uint8Array) => void;
  /** Once, after the last message: `error` when the connection broke rather than closed. */
  readonly onClose: (error?: Error) => void;
}

/** RFC 6455, section 1.3. */
const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/**
 * A minimal WebSocket client over `node:http`/`node:https` upgrade, for the
 * pod `exec` subresource: Node 20 has no global `WebSocket`, and the
 * protocol needed here (binary messages, ping answered, close) is small
 * enough to hold in one tested file rather than a dependency. Text
 * messages are delivered as their bytes; fragmented messages are joined.
 * An answer other than 101 rejects with the API server's `Status`.
 */
export function openWebSocket(request: WebSocketRequest): Promise<ClientWebSocket> {
  return new Promise((resolve, reject) => {
    const key = randomBytes(16).toString("base64");
    const secure = request.url.protocol === "https:" || request.url.protocol === "wss:";
    const url = new URL(request.url);
    url.protocol = secure ? "https:" : "http:";
    const send = secure ? httpsRequest : httpRequest;
    const outgoing = send(url, {
      method: "GET",
      headers: {
        ...request.headers,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": key,
        "sec-websocket-protocol": request.protocols.join(", "),
      },
      ...(secure && request.caPem !== undefined ? { ca: request.caPem } : {}),
      signal: request.signal,
    });
    outgoing.on("error", reject);
    outgoing.on("response", (response: IncomingMessage) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => {
        let reason: string | undefined;
        let message = text.slice(0, 300);
        try {
          const status = JSON.parse(text) as { reason?: unknown; message?: unknown };
          if (typeof status.reason === "string") reason = status.reason;
          if (typeof status.message === "string") message = status.message;
        } catch {
          // Not a Status: the text says it.
        }
        reject(new KubernetesApiError(response.statusCode ?? 0, reason, `HTTP ${response.statusCode}: ${message}`));
      });
    });
    outgoing.on("upgrade", (response: IncomingMessage, socket: Duplex, head: Buffer) => {
      const accept = createHash("sha1")
        .update(key + GUID)
        .digest("base64");
      const protocol = response.headers["sec-websocket-protocol"];
      if (response.headers["sec-websocket-accept"] !== accept || typeof protocol !== "string") {
        socket.destroy();
        reject(new KubernetesMalformedAnswer("the exec WebSocket handshake was not answered as RFC 6455 says"));
        return;
      }
      resolve(frames(socket, head, protocol));
    });
    outgoing.end();
  });
}

function frames(socket: Duplex, head: Buffer, protocol: string): ClientWebSocket {
  let buffered = head;
  // Chunks received while a frame is still incomplete, joined only once it can be: a large frame is copied once.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** The size of the incomplete frame at the start of `buffered`, once its header is in (0: unknown). */
  let needed = 0;
  let fragments: Buffer[] = [];
  let closed = false;
  let handlers: WebSocketHandlers | undefined;
  /** How the socket ended before anyone listened (`null`: it ended cleanly), delivered after what it had sent. */
  let endedEarly: Error | null | undefined;
  const end = (error?: Error) => {
    if (closed) return;
    closed = true;
    handlers?.onClose(error);
  };
  const socketEnded = (error: Error) => {
    if (handlers) end(error);
    else endedEarly ??= error;
  };
  const ws: ClientWebSocket = {
    protocol,
    send: (data) => {
      if (!closed) socket.write(frame(2, data));
    },
    close: () => {
      if (closed) return;
      socket.write(frame(8, new Uint8Array([0x03, 0xe8])));
      socket.end();
    },
    listen: (given) => {
      if (handlers) throw new Error("a WebSocket is listened to once");
      handlers = given;
      parse();
      if (endedEarly) end(endedEarly);
    },
  };
  const parse = () => {
    // Nothing is taken out of the buffer before the caller listens: a message read then would be lost.
    if (!handlers) return;
    for (;;) {
      if (buffered.byteLength < 2) return;
      const first = buffered[0] as number;
      const second = buffered[1] as number;
      let length = second & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffered.byteLength < 4) return;
        length = buffered.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffered.byteLength < 10) return;
        length = Number(buffered.readBigUInt64BE(2));
        offset = 10;
      }
      const masked = (second & 0x80) !== 0;
      const maskOffset = offset;
      if (masked) offset += 4;
      if (buffered.byteLength < offset + length) {
        needed = offset + length;
        return;
      }
      const payload = Buffer.from(buffered.subarray(offset, offset + length));
      if (masked) {
        for (let index = 0; index < payload.byteLength; index++) {
          payload[index] = (payload[index] as number) ^ (buffered[maskOffset + (index % 4)] as number);
        }
      }
      buffered = buffered.subarray(offset + length);
      const opcode = first & 0x0f;
      const fin = (first & 0x80) !== 0;
      if (opcode === 8) {
        if (!closed) socket.end(frame(8, payload.subarray(0, 2)));
        end();
        return;
      }
      if (opcode === 9) {
        socket.write(frame(10, payload));
        continue;
      }
      if (opcode === 10) continue;
      fragments.push(payload);
      if (fin) {
        const message = fragments.length === 1 ? (fragments[0] as Buffer) : Buffer.concat(fragments);
        fragments = [];
        handlers.onMessage(message);
      }
    }
  };
  socket.on("data", (chunk: Buffer) => {
    if (buffered.byteLength + pendingBytes + chunk.byteLength < needed) {
      pending.push(chunk);
      pendingBytes += chunk.byteLength;
      return;
    }
    buffered = buffered.byteLength === 0 && pending.length === 0 ? chunk : Buffer.concat([buffered, ...pending, chunk]);
    pending = [];
    pendingBytes = 0;
    needed = 0;
    parse();
  });
  socket.on("error", (error) => socketEnded(error));
  socket.on("close", () => socketEnded(new Error("the WebSocket connection closed without a close frame")));
  return ws;
}

/** One masked frame (FIN set) of `opcode`. */
function frame(opcode: number, payload: Uint8Array): Buffer {
  const length = payload.byteLength;
  const header = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const out = Buffer.alloc(header + 4 + length);
  out[0] = 0x80 | opcode;
  if (length < 126) out[1] = 0x80 | length;
  else if (length < 65536) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(length, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeBigUInt64BE(BigInt(length), 2);
  }
  const mask = randomBytes(4);
  mask.copy(out, header);
  for (let index = 0; index < length; index++) {
    out[header + 4 + index] = (payload[index] as number) ^ (mask[index % 4] as number);
  }
  return out;
}
