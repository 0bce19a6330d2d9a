/**
 * Daytona's error envelopes. The API (`/api`) answers
 * `{ statusCode, message, error, source: "DAYTONA_API", path, method, timestamp }`;
 * the sandbox daemon behind the toolbox proxy answers
 * `{ statusCode, message, code, source: "DAYTONA_DAEMON", path, method, timestamp }`,
 * and the proxy itself uses the same shape with `source: "DAYTONA_PROXY"`.
 * The SDK turns `(source, code)` and then the status into its typed errors.
 *
 * @module
 */

import { STATUS_CODES } from "node:http";
import { SandportError } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { ErrorReplier } from "../harness/router.js";
import { PathRefusedError } from "./paths.js";
import { BadRequestError } from "./request-body.js";

/** Which Daytona service an error comes from. */
export type ErrorSource = "DAYTONA_API" | "DAYTONA_DAEMON" | "DAYTONA_PROXY";

/** A failure a toolbox handler raises; the route answers it in the daemon's shape. */
export class DaemonError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "DaemonError";
    this.status = status;
    this.code = code;
  }
}

/** The generic code the daemon's error middleware gives a status without a more precise one. */
export function genericCode(status: number): string {
  return (STATUS_CODES[status] ?? "Error").toUpperCase().replace(/[^A-Z]+/g, "_");
}

function envelope(exchange: Exchange, status: number, message: string, source: ErrorSource, code?: string) {
  return {
    statusCode: status,
    message,
    ...(source === "DAYTONA_API" ? { error: STATUS_CODES[status] ?? "Error" } : {}),
    ...(code === undefined ? {} : { code }),
    source,
    path: exchange.url.pathname,
    method: exchange.method,
    timestamp: new Date().toISOString(),
  };
}

/** Answer with the API's error envelope. */
export function apiError(exchange: Exchange, status: number, message: string, headers: Record<string, string> = {}) {
  exchange.json(status, envelope(exchange, status, message, "DAYTONA_API"), headers);
}

/** Answer with the daemon's (or the toolbox proxy's) error envelope; `code` defaults to the status's generic code. */
export function toolboxError(
  exchange: Exchange,
  status: number,
  message: string,
  options: { readonly code?: string; readonly source?: ErrorSource; readonly headers?: Record<string, string> } = {},
) {
  const body = envelope(
    exchange,
    status,
    message,
    options.source ?? "DAYTONA_DAEMON",
    options.code ?? genericCode(status),
  );
  exchange.json(status, body, options.headers ?? {});
}

/** Harness error answers (injected faults, crashes, unknown routes) on API routes. */
export const apiErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  apiError(
    exchange,
    status,
    message,
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  );
};

/** Harness error answers on toolbox routes: the proxy is what answers when the request never reached a daemon. */
export const toolboxErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  toolboxError(exchange, status, message, {
    source: "DAYTONA_PROXY",
    ...(retryAfterSeconds === undefined ? {} : { headers: { "retry-after": String(retryAfterSeconds) } }),
  });
};

/** The error answer for whichever service a path belongs to. */
export const errorReplyByPath: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  const reply = exchange.url.pathname.startsWith("/toolbox/") ? toolboxErrorReply : apiErrorReply;
  reply(exchange, status, message, retryAfterSeconds);
};

/**
 * A backend (port) failure, a refused path or a {@link DaemonError} as the
 * daemon would report it. `subject` names the file the operation was about,
 * so a missing file is the daemon's `FILE_NOT_FOUND`.
 */
export function toDaemonError(error: unknown, subject?: string): DaemonError {
  if (error instanceof DaemonError) return error;
  if (error instanceof BadRequestError) return new DaemonError(400, "BAD_REQUEST", error.message);
  if (error instanceof PathRefusedError) return new DaemonError(400, "INVALID_FILE_PATH", error.message);
  if (SandportError.isInstance(error)) {
    switch (error.code) {
      case "NOT_FOUND":
        return subject === undefined
          ? new DaemonError(404, "NOT_FOUND", error.message)
          : new DaemonError(404, "FILE_NOT_FOUND", `file not found: ${subject}`);
      case "INVALID_REQUEST":
        return new DaemonError(400, "BAD_REQUEST", error.message);
      case "DEADLINE_EXCEEDED":
        return new DaemonError(408, "REQUEST_TIMEOUT", error.message);
      default:
        return new DaemonError(500, "INTERNAL_SERVER_ERROR", error.message);
    }
  }
  return new DaemonError(500, "INTERNAL_SERVER_ERROR", messageOf(error));
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
