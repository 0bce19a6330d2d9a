/**
 * gRPC over HTTP/2 cleartext (h2c, prior knowledge) on node:http2, for the
 * unary and server-streaming calls of sandboxd's ProcessService: 5-byte
 * length-prefixed messages, `grpc-status` / `grpc-message` trailers, a
 * trailers-only answer for an error before any message. Calls go through
 * the emulator's request log and fault rules like HTTP requests.
 *
 * @module
 */

import { createServer, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import type { FaultInjector } from "../harness/faults.js";
import { delay } from "../harness/http-server.js";
import type { RequestLog } from "../harness/request-log.js";

/** gRPC status codes used here. */
export const GRPC = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** A call that ends with a non-OK status. */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** One call as a handler sees it. */
export interface GrpcCall {
  /** `/package.Service/Method`. */
  readonly path: string;
  /** A request header (metadata), name in lower case. */
  header(name: string): string | undefined;
  /** The request message. */
  readonly request: Buffer;
  /** Send one response message; false when the stream's buffer is full (wait for {@link drained} before more). */
  send(message: Buffer): boolean;
  /** Settles once the stream can take more messages, or is closed. */
  drained(): Promise<void>;
  /** Aborted when the client cancels or goes away, or the emulator stops. */
  readonly signal: AbortSignal;
}

/** Serves a call: sends its messages; throws a GrpcError for a non-OK end. */
export type GrpcHandler = (call: GrpcCall) => Promise<void>;

/**
 * An h2c gRPC server on its own loopback port; the router's front hands it
 * the connections that open with the HTTP/2 preface (piped, since an http2
 * session reads its socket below the stream where sniffed bytes were put back).
 */
export class GrpcServer {
  readonly #server: Http2Server;
  readonly #handlers = new Map<string, GrpcHandler>();
  readonly #aborts = new Set<AbortController>();
  readonly #sockets = new Set<Socket>();

  constructor(
    readonly log: RequestLog,
    readonly faults: FaultInjector,
  ) {
    // A stream whose client stops reading holds its handler back (`send` says so, `drained` waits), as a gRPC
    // server's flow control does: the session never buffers past node:http2's default bound (10 MB), past which
    // it would tear the whole connection down (ENHANCE_YOUR_CALM), every other call on it with it.
    this.#server = createServer();
    this.#server.on("stream", (stream, headers) => {
      stream.on("error", () => {});
      this.#serve(stream, headers).catch(() => stream.destroy());
    });
    this.#server.on("sessionError", () => {});
    this.#server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Serve `path` with `handler`. */
  handle(path: string, handler: GrpcHandler): void {
    this.#handlers.set(path, handler);
  }

  /** Listen on 127.0.0.1 and an ephemeral port; resolves the port. */
  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(0, "127.0.0.1", () => resolve((this.#server.address() as AddressInfo).port));
    });
  }

  /** Abort every call in progress. */
  stop(): void {
    for (const abort of this.#aborts) abort.abort(new Error("emulator stopped"));
    this.#server.close();
    for (const socket of this.#sockets) socket.destroy();
  }

  async #serve(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const path = String(headers[":path"] ?? "/");
    const route = `rpc ${path.slice(1)}`;
    const record = this.log.add("POST", path, route, flatten(headers));
    const abort = new AbortController();
    this.#aborts.add(abort);
    stream.on("close", () => abort.abort(new Error("the call ended")));
    try {
      const fault = this.faults.take(route);
      if (fault?.kind === "drop") {
        stream.session?.destroy();
        return;
      }
      const body = await readAll(stream);
      if (fault?.kind === "latency") await delay(fault.ms, abort.signal);
      if (abort.signal.aborted) return;
      if (fault?.kind === "status") {
        record.status = 200;
        endWithStatus(stream, grpcCodeOf(fault.status), `injected fault: HTTP ${fault.status}`, true);
        return;
      }
      const handler = this.#handlers.get(path);
      if (handler === undefined) {
        this.log.addUnknown("POST", path);
        record.status = 200;
        endWithStatus(stream, GRPC.UNIMPLEMENTED, `unknown method ${path}`, true);
        return;
      }
      const request = unframe(body);
      if (request === undefined) {
        record.status = 200;
        endWithStatus(stream, GRPC.INTERNAL, "malformed gRPC message framing", true);
        return;
      }
      let sent = 0;
      const cutAfter = fault?.kind === "drop-mid-stream" ? (fault.afterEvents ?? 1) : Number.POSITIVE_INFINITY;
      const held: Buffer[] = [];
      const holding = fault?.kind === "lost-response" || fault?.kind === "late-response";
      const call: GrpcCall = {
        path,
        header: (name) => {
          const value = headers[name];
          return Array.isArray(value) ? value.join(", ") : value;
        },
        request,
        signal: abort.signal,
        send(message) {
          if (stream.closed || stream.destroyed) return true;
          if (!stream.headersSent) {
            record.status = 200;
            stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
          }
          if (holding) {
            held.push(frame(message));
            return true;
          }
          const room = stream.write(frame(message));
          sent += 1;
          if (sent >= cutAfter) stream.close(0x2);
          return room;
        },
        drained: () =>
          new Promise<void>((resolve) => {
            if (stream.closed || stream.destroyed || !stream.writableNeedDrain) return resolve();
            // Whichever comes first takes the other listener off: a long stream drains many times.
            const settle = () => {
              stream.off("drain", settle);
              stream.off("close", settle);
              resolve();
            };
            stream.once("drain", settle);
            stream.once("close", settle);
          }),
      };
      let code: number = GRPC.OK;
      let message = "";
      try {
        await handler(call);
      } catch (error) {
        code = error instanceof GrpcError ? error.code : GRPC.INTERNAL;
        message = error instanceof Error ? error.message : String(error);
      }
      if (fault?.kind === "lost-response") {
        stream.session?.destroy();
        return;
      }
      if (fault?.kind === "late-response") await delay(fault.ms, abort.signal);
      if (stream.closed || stream.destroyed) return;
      if (!stream.headersSent) {
        record.status = 200;
        endWithStatus(stream, code, message, true);
        return;
      }
      for (const chunk of held) stream.write(chunk);
      if (cutAfter !== Number.POSITIVE_INFINITY) {
        stream.close(0x2);
        return;
      }
      endWithStatus(stream, code, message, false);
    } finally {
      this.#aborts.delete(abort);
      record.endedAt = Date.now();
    }
  }
}

/** Trailers (or a trailers-only answer) carrying the status. */
function endWithStatus(stream: ServerHttp2Stream, code: number, message: string, trailersOnly: boolean): void {
  const trailers = {
    "grpc-status": String(code),
    ...(message === "" ? {} : { "grpc-message": encodeURIComponent(message) }),
  };
  if (trailersOnly) {
    stream.respond({ ":status": 200, "content-type": "application/grpc", ...trailers }, { endStream: true });
    return;
  }
  stream.once("wantTrailers", () => stream.sendTrailers(trailers));
  stream.end();
}

/** One length-prefixed gRPC message. */
export function frame(message: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt8(0, 0);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

/** The single message of a unary or server-streaming request, or undefined when the framing is wrong. */
function unframe(body: Buffer): Buffer | undefined {
  if (body.length === 0) return Buffer.alloc(0);
  if (body.length < 5 || body[0] !== 0) return undefined;
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return undefined;
  return body.subarray(5);
}

function readAll(stream: ServerHttp2Stream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

function flatten(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const result: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!name.startsWith(":")) result[name] = value;
  return result;
}

/** The gRPC code an HTTP status fault stands for (the gRPC HTTP-to-status mapping). */
function grpcCodeOf(status: number): number {
  if (status === 400) return GRPC.INTERNAL;
  if (status === 401) return GRPC.UNAUTHENTICATED;
  if (status === 403) return GRPC.PERMISSION_DENIED;
  if (status === 404) return GRPC.UNIMPLEMENTED;
  if (status === 429 || status === 502 || status === 503 || status === 504) return GRPC.UNAVAILABLE;
  return GRPC.UNKNOWN;
}
