/**
 * The Vercel API's error answers: `{ "error": { "code", "message" } }` with
 * the HTTP status the SDK branches on (404 not found, 410 stopped session,
 * 403 credentials, 400 bad request).
 *
 * @module
 */

import { SandportError } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { ErrorReplier } from "../harness/router.js";
import { PathRefusedError } from "./paths.js";

/** Extra fields some Vercel errors carry beside `code` and `message` (`invalidToken`, `missingToken`). */
export type ErrorDetails = Readonly<Record<string, string | number | boolean>>;

/** Answer with a Vercel error body. */
export function replyError(
  exchange: Exchange,
  status: number,
  code: string,
  message: string,
  details: ErrorDetails = {},
  headers: Record<string, string> = {},
): void {
  exchange.json(status, { error: { code, message, ...details } }, headers);
}

/** The harness's error replier (injected faults, handler crashes) in Vercel's shape. */
export const vercelErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  replyError(
    exchange,
    status,
    codeForStatus(status),
    message,
    {},
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  );
};

/** 400 `bad_request`. */
export function badRequest(exchange: Exchange, message: string): void {
  replyError(exchange, 400, "bad_request", message);
}

/** 404 `not_found`. */
export function notFound(exchange: Exchange, message: string): void {
  replyError(exchange, 404, "not_found", message);
}

/** 410 `sandbox_stopped`: the SDK resumes the sandbox and retries once. */
export function sandboxStopped(exchange: Exchange): void {
  replyError(exchange, 410, "sandbox_stopped", "Sandbox has stopped execution and is no longer available");
}

/** A backend (port) failure or a refused path as a Vercel error answer, its message after `prefix`. */
export function replyFailure(exchange: Exchange, error: unknown, prefix = ""): void {
  const status = statusOf(error);
  replyError(exchange, status, codeForStatus(status), prefix + messageOf(error));
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function statusOf(error: unknown): number {
  if (error instanceof PathRefusedError) return 400;
  if (!SandportError.isInstance(error)) return 500;
  switch (error.code) {
    case "NOT_FOUND":
      return 404;
    case "INVALID_REQUEST":
    case "UNSUPPORTED":
      return 400;
    case "OUTPUT_LIMIT":
      return 413;
    default:
      return 500;
  }
}

function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 410:
      return "gone";
    case 413:
      return "payload_too_large";
    case 429:
      return "rate_limited";
    default:
      return status >= 500 ? "internal_server_error" : "error";
  }
}
