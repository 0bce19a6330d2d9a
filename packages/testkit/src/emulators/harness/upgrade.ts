/**
 * Connection upgrades (WebSocket handshakes) through the same request log,
 * fault injection and unknown-route handling as plain requests. The harness
 * stays protocol-free: a route gets the raw socket once the handshake request
 * has been logged and its fault applied, and speaks WebSocket itself (with the
 * `ws` library, say).
 *
 * @module
 */

import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Disruption } from "./exchange.js";
import type { MutableRequestRecord } from "./request-log.js";

/** How an upgrade route answers a handshake the harness itself rejects (status fault, handler crash). */
export type UpgradeErrorReplier = (
  exchange: UpgradeExchange,
  status: number,
  message: string,
  retryAfterSeconds?: number,
) => void;

/** One route whose requests upgrade the connection (`GET` with `Upgrade: websocket`). */
export interface UpgradeRouteDefinition {
  /** Path pattern; `:name` segments capture one path segment into `exchange.params`. */
  readonly pattern: string;
  /** Route name used in request records and fault rules. Default: `"GET <pattern>"`. */
  readonly name?: string;
  /** Completes the handshake (or rejects it) and serves the connection. */
  readonly handler: (exchange: UpgradeExchange) => Promise<void> | void;
  /** How errors on this route are shaped. Default: `{ code, message }` JSON. */
  readonly errorReply?: UpgradeErrorReplier;
}

/**
 * One handshake request and its connection. The handler either completes
 * the handshake on `socket` (then calls `accepted`) or answers with `reject`.
 */
export class UpgradeExchange {
  /** Parsed URL of the request (origin is the emulator's). */
  readonly url: URL;
  /** Route name this request was matched to. */
  readonly route: string;
  /** Path parameters of the matched route. */
  readonly params: Readonly<Record<string, string>>;
  /** The handshake request. */
  readonly request: IncomingMessage;
  /** The raw connection. */
  readonly socket: Duplex;
  /** Bytes the client sent after the handshake request, already read off the socket. */
  readonly head: Buffer;
  /**
   * Set by the fault layer: `cut` means destroy the connection after the
   * handler sent `afterEvents` messages; `lost-response` means do the work and
   * destroy the connection instead of sending the final answer.
   */
  readonly disruption: Disruption | undefined;

  readonly #record: MutableRequestRecord;
  #answered = false;

  constructor(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    record: MutableRequestRecord,
    url: URL,
    params: Readonly<Record<string, string>>,
    disruption: Disruption | undefined,
  ) {
    this.request = request;
    this.socket = socket;
    this.head = head;
    this.#record = record;
    this.url = url;
    this.route = record.route;
    this.params = params;
    this.disruption = disruption;
  }

  /** One request header (case-insensitive), repeated values joined with `", "`. */
  header(name: string): string | undefined {
    const value = this.request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  /** All request headers, names lower-cased. */
  get headers(): IncomingHttpHeaders {
    return this.request.headers;
  }

  /** True once the handshake was accepted or rejected (or the connection destroyed). */
  get answered(): boolean {
    return this.#answered;
  }

  /** Record that the handshake completed (`101 Switching Protocols`). */
  accepted(): void {
    this.#answered = true;
    this.#record.status = 101;
  }

  /** Answer the handshake with an HTTP status and body instead of upgrading, then close the connection. */
  reject(status: number, headers: Readonly<Record<string, string>>, body: string): void {
    if (this.#answered) return;
    this.#answered = true;
    if (this.socket.destroyed) return;
    this.#record.status = status;
    const bytes = Buffer.from(body);
    const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`];
    for (const [name, value] of Object.entries({
      ...headers,
      "content-length": String(bytes.length),
      connection: "close",
    })) {
      lines.push(`${name}: ${value}`);
    }
    this.socket.end(Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), bytes]));
  }

  /** Destroy the connection now, without (further) answer. */
  destroy(): void {
    this.#answered = true;
    this.socket.destroy();
  }
}

/** The default handshake error: `{ "code": <status>, "message": ... }` JSON. */
export const jsonUpgradeErrorReply: UpgradeErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  exchange.reject(
    status,
    {
      "content-type": "application/json",
      ...(retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) }),
    },
    JSON.stringify({ code: status, message }),
  );
};
