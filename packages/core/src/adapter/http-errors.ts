import type { SandportErrorCode } from "../errors/error-code.js";

/** A code and its retryability, as an error classification yields them. */
export interface ErrorClass {
  readonly code: SandportErrorCode;
  /** Absent: the code's default (`RATE_LIMITED` and `PROVIDER_UNAVAILABLE` retryable, others not). */
  readonly retryable?: boolean;
  /**
   * Whether the request reached the provider: `true` when the provider
   * answered (a status, a refusal), `false` when it provably never left (the
   * connection was refused, the host unknown). Absent: the shared transport
   * rules decide ({@link transportFacts}), else unknown.
   */
  readonly sent?: boolean;
  /**
   * Whether a mutating request may have taken effect although it failed (a
   * create may have created). Absent: the shared transport rules decide.
   */
  readonly outcomeUnknown?: boolean;
}

/**
 * Codes and messages with which Node, undici and axios report a connection
 * that never opened: nothing was sent, so nothing happened.
 */
const UNREACHABLE = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/;

/**
 * What fetch (undici) says when it refuses a port the Fetch standard blocks
 * (`http://host:9`, `:25`, ...) before it connects: nothing was sent either.
 */
const BLOCKED_PORT = "bad port";

/**
 * True when the provider's endpoint could not be reached at all (connection
 * refused, unknown host, no route, a port fetch refuses): the request never left, so its outcome is
 * known. Looked for along the `cause` chain and in `AggregateError`s (Node's
 * happy-eyeballs connect reports one per address).
 */
export function isUnreachable(error: unknown): boolean {
  return someInChain(error, (current) => {
    const code = (current as { code?: unknown }).code;
    const message = (current as { message?: unknown }).message;
    return (
      (typeof code === "string" && UNREACHABLE.test(code)) ||
      (typeof message === "string" && (UNREACHABLE.test(message) || message === BLOCKED_PORT))
    );
  });
}

/** What the transport says about a failed request, whatever the vendor: was it sent, may it have taken effect. */
export interface TransportFacts {
  /** `true`: the provider answered; `false`: nothing left this process; `undefined`: unknown. */
  readonly sent: boolean | undefined;
  /** `true`: the request may have taken effect; `false`: it did not; `undefined`: the transport cannot tell. */
  readonly outcomeUnknown: boolean | undefined;
}

/**
 * The shared transport rules: an HTTP answer was sent, and its effect is
 * unknown only for a 5xx other than 503 (which refuses); an unreachable
 * endpoint sent nothing; a connection dropped mid-request may have taken
 * effect. Anything else is left to the error's class.
 */
export function transportFacts(error: unknown): TransportFacts {
  const status = httpStatusOf(error);
  if (status !== undefined) return { sent: true, outcomeUnknown: status >= 500 && status !== 503 };
  if (isUnreachable(error)) return { sent: false, outcomeUnknown: false };
  if (isConnectionLost(error)) return { sent: undefined, outcomeUnknown: true };
  return { sent: undefined, outcomeUnknown: undefined };
}

function someInChain(error: unknown, test: (current: object) => boolean): boolean {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 16; seen++) {
    const current = pending.shift();
    if (typeof current !== "object" || current === null) continue;
    if (test(current)) return true;
    pending.push((current as { cause?: unknown }).cause);
    const inner = (current as { errors?: unknown }).errors;
    if (Array.isArray(inner)) pending.push(...inner);
  }
  return false;
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
