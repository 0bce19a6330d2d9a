/**
 * Server side of the Connect protocol (https://connectrpc.com/docs/protocol)
 * in its JSON flavour: unary calls as plain JSON, server streams as enveloped
 * JSON messages closed by an end-stream message. Enough for SDKs that talk
 * Connect with `useBinaryFormat: false`.
 *
 * @module
 */

import type { Exchange } from "./exchange.js";
import type { ErrorReplier, RouteDefinition } from "./router.js";

/** Connect error codes. */
export type RpcCode =
  | "canceled"
  | "unknown"
  | "invalid_argument"
  | "deadline_exceeded"
  | "not_found"
  | "already_exists"
  | "permission_denied"
  | "resource_exhausted"
  | "failed_precondition"
  | "aborted"
  | "out_of_range"
  | "unimplemented"
  | "internal"
  | "unavailable"
  | "data_loss"
  | "unauthenticated";

/** An error a handler throws to answer with a Connect error. */
export class RpcError extends Error {
  readonly code: RpcCode;
  constructor(code: RpcCode, message: string) {
    super(message);
    this.name = "RpcError";
    this.code = code;
  }
}

const HTTP_STATUS: Record<RpcCode, number> = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
};

/** The HTTP status a unary error with this code is sent with. */
export function httpStatusForCode(code: RpcCode): number {
  return HTTP_STATUS[code];
}

/** The Connect code that best names an HTTP status (used for injected status faults). */
export function codeForHttpStatus(status: number): RpcCode {
  switch (status) {
    case 400:
      return "invalid_argument";
    case 401:
      return "unauthenticated";
    case 403:
      return "permission_denied";
    case 404:
      return "not_found";
    case 409:
      return "aborted";
    case 429:
      return "resource_exhausted";
    case 499:
      return "canceled";
    case 501:
      return "unimplemented";
    case 502:
    case 503:
    case 504:
      return "unavailable";
    default:
      return status >= 500 ? "internal" : "unknown";
  }
}

const FLAG_END_STREAM = 0b10;
const FLAG_COMPRESSED = 0b01;

/** One enveloped message: 1 flag byte, 4-byte big-endian length, payload. */
export function encodeEnvelope(flags: number, payload: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + payload.length);
  frame.writeUInt8(flags, 0);
  frame.writeUInt32BE(payload.length, 1);
  frame.set(payload, 5);
  return frame;
}

/** Split a request body into its enveloped messages. Throws `invalid_argument` on a malformed body. */
export function decodeEnvelopes(body: Uint8Array): { flags: number; payload: Buffer }[] {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const frames: { flags: number; payload: Buffer }[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    if (buffer.length - offset < 5) throw new RpcError("invalid_argument", "truncated envelope header");
    const flags = buffer.readUInt8(offset);
    const length = buffer.readUInt32BE(offset + 1);
    if (buffer.length - offset - 5 < length) throw new RpcError("invalid_argument", "truncated envelope payload");
    frames.push({ flags, payload: buffer.subarray(offset + 5, offset + 5 + length) });
    offset += 5 + length;
  }
  return frames;
}

/** Shape errors of Connect routes: unary JSON error with a matching code. */
export const rpcErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  exchange.json(
    status,
    { code: codeForHttpStatus(status), message },
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  );
};

/** Answer a request with a Connect error at the HTTP level (auth middleware, unknown procedure). */
export function replyRpcError(exchange: Exchange, error: RpcError, status = httpStatusForCode(error.code)): void {
  exchange.json(status, { code: error.code, message: error.message });
}

/** True for a path shaped like a Connect procedure: `/<package>.<Service>/<Method>`. */
export function isRpcPath(pathname: string): boolean {
  return /^\/[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+\/[A-Za-z_]\w*$/.test(pathname);
}

/** Route name of a Connect procedure path: `rpc process.Process/Start`. */
export function rpcRouteName(pathname: string): string {
  return `rpc ${pathname.slice(1)}`;
}

/** What a Connect handler gets besides its request message. */
export interface RpcContext {
  readonly exchange: Exchange;
  /** The client's deadline from `Connect-Timeout-Ms`, if it sent one. */
  readonly timeoutMs: number | undefined;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

/** Sends messages of a server stream. */
export interface RpcStream {
  /** Send one message. Ignored once the stream is closed. */
  send(message: unknown): void;
  /** True once the client went away (or the stream ended). */
  readonly closed: boolean;
}

/** A unary procedure. */
export interface UnaryProcedure {
  readonly kind: "unary";
  readonly handler: (request: Record<string, unknown>, context: RpcContext) => Promise<unknown> | unknown;
}

/** A server-streaming procedure. Throwing `RpcError` ends the stream with that error. */
export interface ServerStreamProcedure {
  readonly kind: "server-stream";
  readonly handler: (request: Record<string, unknown>, stream: RpcStream, context: RpcContext) => Promise<void>;
}

/** Options of {@link rpcRoute}. */
export interface RpcRouteOptions {
  /** Runs before the request is decoded; answer and return `false` to stop (auth, sandbox lookup). */
  readonly guard?: (exchange: Exchange) => Promise<boolean> | boolean;
}

/** A route serving one Connect procedure at `/<service>/<method>`, named `rpc <service>/<method>`. */
export function rpcRoute(
  service: string,
  method: string,
  procedure: UnaryProcedure | ServerStreamProcedure,
  options: RpcRouteOptions = {},
): RouteDefinition {
  return {
    method: "POST",
    pattern: `/${service}/${method}`,
    name: `rpc ${service}/${method}`,
    errorReply: rpcErrorReply,
    handler: async (exchange) => {
      if (options.guard && !(await options.guard(exchange))) return;
      if (procedure.kind === "unary") await serveUnary(exchange, procedure);
      else await serveServerStream(exchange, procedure);
    },
  };
}

function contextOf(exchange: Exchange): RpcContext {
  const header = exchange.header("connect-timeout-ms");
  const parsed = header !== undefined && /^\d{1,10}$/.test(header) ? Number(header) : undefined;
  return { exchange, timeoutMs: parsed, signal: exchange.signal };
}

function mediaType(exchange: Exchange): string {
  return (exchange.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

function parseMessage(payload: Uint8Array): Record<string, unknown> {
  if (payload.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload).toString("utf8"));
  } catch {
    throw new RpcError("invalid_argument", "request message is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new RpcError("invalid_argument", "request message must be a JSON object");
  }
  return value as Record<string, unknown>;
}

async function serveUnary(exchange: Exchange, procedure: UnaryProcedure): Promise<void> {
  if (mediaType(exchange) !== "application/json") {
    exchange.json(415, {
      code: "unimplemented",
      message: `unsupported content type ${exchange.header("content-type")}`,
    });
    return;
  }
  try {
    const result = await procedure.handler(parseMessage(exchange.body), contextOf(exchange));
    exchange.json(200, result ?? {});
  } catch (error) {
    replyRpcError(exchange, asRpcError(error));
  }
}

async function serveServerStream(exchange: Exchange, procedure: ServerStreamProcedure): Promise<void> {
  if (mediaType(exchange) !== "application/connect+json") {
    exchange.json(415, {
      code: "unimplemented",
      message: `unsupported content type ${exchange.header("content-type")}`,
    });
    return;
  }
  let request: Record<string, unknown>;
  try {
    const frames = decodeEnvelopes(exchange.body);
    const first = frames[0];
    if (frames.length !== 1 || !first)
      throw new RpcError("invalid_argument", "a server stream takes exactly one request message");
    if (first.flags & FLAG_COMPRESSED)
      throw new RpcError("unimplemented", "compressed request messages are not supported");
    request = parseMessage(first.payload);
  } catch (error) {
    replyRpcError(exchange, asRpcError(error));
    return;
  }

  let response: ReturnType<Exchange["stream"]> | undefined;
  const open = () => {
    response ??= exchange.stream(200, { "content-type": "application/connect+json" });
    return response;
  };
  const stream: RpcStream = {
    send(message) {
      open().write(encodeEnvelope(0, Buffer.from(JSON.stringify(message))));
    },
    get closed() {
      return exchange.signal.aborted || (response?.closed ?? false);
    },
  };
  let endMessage: Record<string, unknown> = {};
  try {
    await procedure.handler(request, stream, contextOf(exchange));
  } catch (error) {
    const rpcError = asRpcError(error);
    endMessage = { error: { code: rpcError.code, message: rpcError.message } };
  }
  open().end(encodeEnvelope(FLAG_END_STREAM, Buffer.from(JSON.stringify(endMessage))));
}

/** Any thrown value as an `RpcError` (`internal` unless it already is one). */
export function asRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  return new RpcError("internal", error instanceof Error ? error.message : String(error));
}
