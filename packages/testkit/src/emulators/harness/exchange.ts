import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { MutableRequestRecord } from "./request-log.js";
import { WebSocketConnection } from "./websocket.js";

/** A streamed answer: chunks go out as they are written. */
export interface ResponseStream {
  /** Send one chunk (one event). Ignored once the stream is closed. */
  write(chunk: Uint8Array | string): void;
  /** Send the last chunk, if any, and finish the answer. */
  end(chunk?: Uint8Array | string): void;
  /** True once the answer finished or the connection went away. */
  readonly closed: boolean;
}

/** How the answer to this request is to be disturbed, set by the fault layer before the handler runs. */
export type Disruption =
  | { readonly kind: "lost-response" }
  | { readonly kind: "cut"; readonly afterEvents: number }
  /** The answer goes out `ms` after the handler gave it, unless the client went away meanwhile. */
  | { readonly kind: "late"; readonly ms: number };

/** Options of {@link Exchange.acceptWebSocket}. */
export interface AcceptWebSocketOptions {
  /** The subprotocol to confirm in `Sec-WebSocket-Protocol`, when the client offered one. */
  readonly protocol?: string;
  /** Largest message the client may send, in bytes. Default: 64 MiB. */
  readonly maxMessageBytes?: number;
  /**
   * Who applies a `drop-mid-stream` or `lost-response` fault. `"connection"`
   * (the default): the harness cuts the connection after `afterEvents` sent
   * messages, and a lost response destroys the connection instead of the
   * `101`. `"route"`: the handshake completes untouched and the route applies
   * {@link Exchange.disruption} itself, for a protocol whose answer is one
   * message among many (a terminal message, messages after a greeting).
   */
  readonly disruptionBy?: "connection" | "route";
}

/** The raw connection of a request that asked to upgrade (`Connection: Upgrade`). */
export interface UpgradeSocket {
  readonly socket: Duplex;
  /** Bytes the client sent after its request headers. */
  readonly head: Buffer;
}

/**
 * One request and its answer. Handlers answer through `reply`, `json`,
 * `stream` or `acceptWebSocket` (never through the raw response), which lets
 * the fault layer lose or cut the answer after the work is done.
 */
export class Exchange {
  readonly method: string;
  /** Parsed URL of the request (origin is the emulator's). */
  readonly url: URL;
  /** Path and query as sent. */
  readonly rawPath: string;
  /** Route name this request was matched to. */
  readonly route: string;
  /** Path parameters of the matched route (`:id` → `params.id`). */
  params: Readonly<Record<string, string>> = {};
  /** The whole request body. */
  readonly body: Buffer;
  /** Aborted when the client goes away or the emulator stops. */
  readonly signal: AbortSignal;

  readonly #request: IncomingMessage;
  readonly #response: ServerResponse;
  readonly #record: MutableRequestRecord;
  readonly #upgrade: UpgradeSocket | undefined;
  readonly #abort = new AbortController();
  #disruption: Disruption | undefined;
  #answered = false;

  constructor(
    request: IncomingMessage,
    response: ServerResponse,
    record: MutableRequestRecord,
    url: URL,
    body: Buffer,
    upgrade?: UpgradeSocket,
  ) {
    this.#request = request;
    this.#response = response;
    this.#record = record;
    this.#upgrade = upgrade;
    this.method = record.method;
    this.rawPath = record.path;
    this.route = record.route;
    this.url = url;
    this.body = body;
    this.signal = this.#abort.signal;
    response.on("close", () => {
      if (!response.writableFinished) this.#abort.abort(new Error("client went away"));
    });
  }

  /** One request header (case-insensitive), repeated values joined with `", "`. */
  header(name: string): string | undefined {
    const value = this.#request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  /** All request headers, names lower-cased. */
  get headers(): IncomingHttpHeaders {
    return this.#request.headers;
  }

  /** True when the client asked to switch this request to a WebSocket (`Upgrade: websocket`). */
  get wantsWebSocket(): boolean {
    return this.#upgrade !== undefined && (this.header("upgrade") ?? "").toLowerCase() === "websocket";
  }

  /** True once an answer was started (or the connection was destroyed). */
  get answered(): boolean {
    return this.#answered;
  }

  /** How the fault layer disturbs this request's answer, if at all. */
  get disruption(): Disruption | undefined {
    return this.#disruption;
  }

  /** Set by the fault layer. */
  disrupt(disruption: Disruption): void {
    this.#disruption = disruption;
  }

  /** Cancel whatever the handler is waiting on (the emulator is stopping). */
  abort(reason: unknown): void {
    this.#abort.abort(reason);
  }

  /** Answer with a status, headers and an optional body. */
  reply(status: number, headers: OutgoingHttpHeaders = {}, body?: Uint8Array | string): void {
    if (this.#claim()) return;
    const bytes = body === undefined ? undefined : typeof body === "string" ? Buffer.from(body) : Buffer.from(body);
    const disruption = this.#disruption;
    if (disruption?.kind === "lost-response") {
      this.destroy();
      return;
    }
    if (disruption?.kind === "late") {
      const timer = setTimeout(() => {
        if (this.#response.destroyed || this.signal.aborted) return;
        this.#record.status = status;
        this.#response.writeHead(status, { ...headers, "content-length": this.#contentLength(headers, bytes) });
        this.#response.end(bytes);
      }, disruption.ms);
      timer.unref();
      return;
    }
    this.#record.status = status;
    const response = this.#response;
    response.writeHead(status, { ...headers, "content-length": this.#contentLength(headers, bytes) });
    if (disruption?.kind === "cut") {
      // Headers and half the body, then the connection dies.
      if (bytes && bytes.length > 1) response.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
      else response.flushHeaders();
      setImmediate(() => this.destroy());
      return;
    }
    response.end(bytes);
  }

  /** The body's length; a HEAD answer (no body) may state the length a GET would have. */
  #contentLength(headers: OutgoingHttpHeaders, bytes: Buffer | undefined): number | string {
    const stated = headers["content-length"];
    return this.method === "HEAD" && (typeof stated === "string" || typeof stated === "number")
      ? stated
      : (bytes?.length ?? 0);
  }

  /** Answer with a JSON body. */
  json(status: number, value: unknown, headers: OutgoingHttpHeaders = {}): void {
    this.reply(status, { "content-type": "application/json", ...headers }, JSON.stringify(value));
  }

  /** Start a streamed answer. */
  stream(status: number, headers: OutgoingHttpHeaders = {}): ResponseStream {
    const closedStream: ResponseStream = { write() {}, end() {}, closed: true };
    if (this.#claim()) return closedStream;
    const disruption = this.#disruption;
    if (disruption?.kind === "lost-response") {
      this.destroy();
      return closedStream;
    }
    this.#record.status = status;
    const response = this.#response;
    response.writeHead(status, headers);
    response.flushHeaders();
    let written = 0;
    let finished = false;
    const cutAfter = disruption?.kind === "cut" ? disruption.afterEvents : Number.POSITIVE_INFINITY;
    const cut = () => {
      finished = true;
      // Let the bytes already written reach the client, then kill the connection.
      setImmediate(() => this.destroy());
    };
    if (cutAfter === 0) cut();
    const isClosed = () => finished || response.destroyed || response.writableEnded;
    return {
      get closed() {
        return isClosed();
      },
      write(chunk) {
        if (isClosed()) return;
        response.write(chunk);
        written += 1;
        if (written >= cutAfter) cut();
      },
      end(chunk) {
        if (isClosed()) return;
        if (cutAfter !== Number.POSITIVE_INFINITY) {
          // A cut stream never finishes cleanly, even when it had fewer events than the cut point.
          cut();
          return;
        }
        finished = true;
        response.end(chunk);
      },
    };
  }

  /**
   * Complete the WebSocket handshake (`101`) and return the connection. Only
   * for requests where {@link wantsWebSocket} is true; a request without a
   * valid `Sec-WebSocket-Key` is answered 400 and `undefined` returned. A
   * `drop-mid-stream` fault cuts the connection after `afterEvents` messages;
   * `lost-response` destroys it instead of answering (unless the route
   * applies faults itself, see {@link AcceptWebSocketOptions.disruptionBy}).
   */
  acceptWebSocket(options: AcceptWebSocketOptions = {}): WebSocketConnection | undefined {
    const upgrade = this.#upgrade;
    if (!upgrade || !this.wantsWebSocket) throw new Error("acceptWebSocket needs a WebSocket upgrade request");
    const key = this.header("sec-websocket-key");
    if (!key || this.header("sec-websocket-version") !== "13") {
      this.json(400, {
        code: 400,
        message: "a WebSocket upgrade needs Sec-WebSocket-Key and Sec-WebSocket-Version: 13",
      });
      return undefined;
    }
    if (this.#claim()) return undefined;
    const disruption = options.disruptionBy === "route" ? undefined : this.#disruption;
    if (disruption?.kind === "lost-response") {
      this.destroy();
      return undefined;
    }
    this.#record.status = 101;
    const connection = WebSocketConnection.open(upgrade.socket, key, upgrade.head, {
      ...(options.protocol === undefined ? {} : { protocol: options.protocol }),
      ...(disruption?.kind === "cut" ? { cutAfterMessages: disruption.afterEvents } : {}),
      ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes }),
    });
    connection.signal.addEventListener("abort", () => this.#abort.abort(new Error("websocket closed")), { once: true });
    return connection;
  }

  /** Destroy the connection now, without (further) answer. */
  destroy(): void {
    this.#answered = true;
    this.#request.socket.destroy();
    this.#response.destroy();
    this.#abort.abort(new Error("connection destroyed"));
  }

  #claim(): boolean {
    if (this.#answered || this.#response.destroyed) {
      this.#answered = true;
      return true;
    }
    this.#answered = true;
    return false;
  }
}
