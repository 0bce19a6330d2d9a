/**
 * The answer of one Freestyle API call as a value, so it can be sent inline or
 * stored for a background poll, and errors in the API's shape:
 * `{ "code": "VM_NOT_FOUND", "message": "..." }`, which the SDK turns into a
 * `FreestyleApiError` with that `code` and the HTTP status.
 *
 * @module
 */

import type { OutgoingHttpHeaders } from "node:http";
import type { Exchange } from "../harness/exchange.js";
import type { ErrorReplier } from "../harness/router.js";

/** A complete answer: status, headers and body bytes. */
export interface ApiReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Body bytes; empty for 204. */
  readonly body: Uint8Array;
}

/** A JSON answer. */
export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): ApiReply {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: Buffer.from(JSON.stringify(value)),
  };
}

/** An answer without a body (204). */
export function emptyReply(): ApiReply {
  return { status: 204, headers: {}, body: new Uint8Array() };
}

/** A failure with the API's error code; thrown by handlers, answered as `{ code, message }`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/** 400 `BAD_REQUEST`: the request is malformed. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, "BAD_REQUEST", message);
}

/**
 * 400 `NOT_EMULATED`: a field or value the real API accepts but this emulator
 * cannot honour. A code of the emulator's own, so a test fails loudly instead
 * of passing on something that did not happen.
 */
export function notEmulated(message: string): ApiError {
  return new ApiError(400, "NOT_EMULATED", `not emulated: ${message}`);
}

/** 404 `VM_NOT_FOUND`. */
export function vmNotFound(idOrSlug: string): ApiError {
  return new ApiError(404, "VM_NOT_FOUND", `VM not found: ${idOrSlug}`);
}

/** Any thrown value as an API error reply (`INTERNAL_ERROR` unless it already is one). */
export function errorReplyOf(error: unknown, headers: Record<string, string> = {}): ApiReply {
  const apiError =
    error instanceof ApiError
      ? error
      : new ApiError(
          500,
          "INTERNAL_ERROR",
          `emulator error: ${error instanceof Error ? error.message : String(error)}`,
        );
  return jsonReply(apiError.status, { code: apiError.code, message: apiError.message }, headers);
}

/** Send a reply on the exchange, plus extra headers. */
export function send(exchange: Exchange, reply: ApiReply, extraHeaders: OutgoingHttpHeaders = {}): void {
  exchange.reply(reply.status, { ...reply.headers, ...extraHeaders }, reply.body.length > 0 ? reply.body : undefined);
}

/** The error code the API uses for an HTTP status the harness injects. */
export function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return "BAD_REQUEST";
    case 401:
      return "UNAUTHORIZED";
    case 403:
      return "FORBIDDEN";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "CONFLICT";
    case 429:
      return "RATE_LIMITED";
    case 502:
    case 503:
    case 504:
      return "SERVICE_UNAVAILABLE";
    default:
      return status >= 500 ? "INTERNAL_ERROR" : "BAD_REQUEST";
  }
}

/** Shapes faults and harness errors like the API's own errors, so the SDK raises `FreestyleApiError`. */
export const apiErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  exchange.json(
    status,
    { code: codeForStatus(status), message },
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  );
};

/** The JSON object body; an empty body is `{}`. Throws `BAD_REQUEST` otherwise. */
export function readJsonObject(body: Uint8Array): Record<string, unknown> {
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch {
    throw badRequest("request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
