import type { SandportErrorCode } from "../errors/error-code.js";

/** A code and its retryability, as an error classification yields them. */
export interface ErrorClass {
  readonly code: SandportErrorCode;
  /** Absent: the code's default (`RATE_LIMITED` and `PROVIDER_UNAVAILABLE` retryable, others not). */
  readonly retryable?: boolean;
}

/**
 * Messages and codes with which Node, undici, connect-es and axios report a
 * connection dropped mid-request: the outcome of a mutating call is then unknown.
 */
const CONNECTION_LOST =
  /\b(terminated|fetch failed|socket hang up|other side closed|ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|network error|UND_ERR_SOCKET|closed unexpectedly)\b/i;

/**
 * The HTTP status behind a vendor error, where its SDK kept one: a numeric
 * `status`, `statusCode` or `response.status` (fetch, axios, most SDKs), a
 * `"503: ..."` message prefix, or an `"HTTP 503"` in the message (connect-rpc).
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const candidate = error as { status?: unknown; statusCode?: unknown; response?: { status?: unknown } };
  for (const value of [candidate.statusCode, candidate.status, candidate.response?.status]) {
    if (typeof value === "number" && value >= 100 && value < 600) return value;
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message !== "string") return undefined;
  const match = /^(\d{3}): /.exec(message) ?? /\bHTTP (\d{3})\b/.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** True when a connection dropped mid-request (looked for along the `cause` chain). */
export function isConnectionLost(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const message = (current as { message?: unknown }).message;
    const code = (current as { code?: unknown }).code;
    if (typeof message === "string" && CONNECTION_LOST.test(message)) return true;
    if (typeof code === "string" && CONNECTION_LOST.test(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The code an HTTP status means, the same for every provider: 401/403 `AUTH`;
 * 404/410 `NOT_FOUND`; 408 `DEADLINE_EXCEEDED` (retryable); 409 and other 4xx
 * `INVALID_REQUEST`; 429 `RATE_LIMITED`; 5xx `PROVIDER_UNAVAILABLE`.
 */
export function classifyHttpStatus(status: number): ErrorClass | undefined {
  if (status === 401 || status === 403) return { code: "AUTH" };
  if (status === 404 || status === 410) return { code: "NOT_FOUND", retryable: false };
  if (status === 408) return { code: "DEADLINE_EXCEEDED", retryable: true };
  if (status === 429) return { code: "RATE_LIMITED" };
  if (status >= 500 && status < 600) return { code: "PROVIDER_UNAVAILABLE" };
  if (status >= 400 && status < 500) return { code: "INVALID_REQUEST" };
  return undefined;
}

/**
 * Seconds or an HTTP date from a `Retry-After` value, as milliseconds; `undefined` when absent or unreadable.
 */
export function retryAfterMs(value: unknown, now = Date.now()): number | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return Math.round(value * 1000);
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
