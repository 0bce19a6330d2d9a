import { SandportError, type SandportErrorCode } from "@sandport/core";
import { PROVIDER } from "./options.js";

/** What an error mapping knows about the call that failed. */
export interface ErrorContext {
  /** Operation name (`launch`, `exec`, `readFile`, ...). */
  readonly operation: string;
  /** Sandbox involved, if any. */
  readonly sandboxId?: string;
  /** Path involved, if any. */
  readonly path?: string;
}

/** Messages with which runtimes report a connection dropped mid-request (undici, connect-es, Node). */
const CONNECTION_LOST =
  /\b(terminated|fetch failed|socket hang up|other side closed|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|network error|UND_ERR_SOCKET|closed unexpectedly)\b/i;

/**
 * Maps anything the e2b SDK throws to a `SandportError`, keeping the vendor
 * error as `cause`. A `SandportError` passes through unchanged.
 *
 * - 401/403, `AuthenticationError` → `AUTH`
 * - 404, `NotFoundError` and its subclasses → `NOT_FOUND`
 * - 429, `RateLimitError` → `RATE_LIMITED` (retryable; the SDK has already
 *   honoured `Retry-After` `rateLimitRetries` times and does not expose the header)
 * - 5xx, `ServiceBusyError`, dropped connections → `PROVIDER_UNAVAILABLE` (retryable)
 * - `TimeoutError`, request timeouts → `DEADLINE_EXCEEDED`
 * - `InvalidArgumentError`, other 4xx → `INVALID_REQUEST`; `TemplateError` → `UNSUPPORTED`
 * - anything else → `UNEXPECTED`
 */
export function mapE2BError(error: unknown, context: ErrorContext): SandportError {
  if (SandportError.isInstance(error)) return error;
  const { code, retryable } = classify(error);
  const message = error instanceof Error ? error.message : String(error);
  const where = context.sandboxId ? ` (sandbox ${context.sandboxId}${context.path ? `, ${context.path}` : ""})` : "";
  return new SandportError({
    code,
    provider: PROVIDER,
    retryable,
    cause: error,
    message: `e2b ${context.operation} failed${where}: ${message}`,
    details: {
      operation: context.operation,
      ...(context.sandboxId ? { sandboxId: context.sandboxId } : {}),
      ...(context.path ? { path: context.path } : {}),
      ...(statusOf(error) === undefined ? {} : { status: statusOf(error) }),
      ...(errorName(error) === undefined ? {} : { vendorError: errorName(error) }),
    },
  });
}

/** True when the SDK reports that the sandbox, file or process does not exist. */
export function isNotFound(error: unknown): boolean {
  if (SandportError.isInstance(error)) return error.code === "NOT_FOUND";
  return classify(error).code === "NOT_FOUND";
}

/** True when the SDK reports a sandbox that is gone (as opposed to a missing file). */
export function isSandboxNotFound(error: unknown): boolean {
  return errorName(error) === "SandboxNotFoundError";
}

/**
 * The HTTP status behind an SDK error, where the SDK kept one: the
 * `statusCode` field, a `"503: ..."` message prefix (envd errors), or a
 * connect-rpc `"HTTP 503"` message.
 */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (typeof statusCode === "number") return statusCode;
  const message = (error as { message?: unknown }).message;
  if (typeof message !== "string") return undefined;
  const match = /^(\d{3}): /.exec(message) ?? /\bHTTP (\d{3})\b/.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** True when a connection dropped mid-request: the outcome of a mutating call is then unknown. */
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

function classify(error: unknown): { code: SandportErrorCode; retryable?: boolean } {
  const name = errorName(error);
  const status = statusOf(error);
  switch (name) {
    case "AuthenticationError":
    case "GitAuthError":
      return { code: "AUTH" };
    case "RateLimitError":
      return { code: "RATE_LIMITED" };
    case "ServiceBusyError":
      return { code: "PROVIDER_UNAVAILABLE" };
    case "NotFoundError":
    case "FileNotFoundError":
    case "SandboxNotFoundError":
      return { code: "NOT_FOUND", retryable: false };
    case "TimeoutError":
      return { code: "DEADLINE_EXCEEDED", retryable: true };
    case "InvalidArgumentError":
      return { code: "INVALID_REQUEST" };
    case "TemplateError":
      return { code: "UNSUPPORTED" };
    case "NotEnoughSpaceError":
      return { code: "PROVIDER_UNAVAILABLE", retryable: false };
    case "AbortError":
      return { code: "DEADLINE_EXCEEDED", retryable: true };
  }
  if (status !== undefined) {
    if (status === 401 || status === 403) return { code: "AUTH" };
    if (status === 404) return { code: "NOT_FOUND", retryable: false };
    if (status === 408) return { code: "DEADLINE_EXCEEDED", retryable: true };
    if (status === 429) return { code: "RATE_LIMITED" };
    if (status >= 500) return { code: "PROVIDER_UNAVAILABLE" };
    if (status >= 400) return { code: "INVALID_REQUEST" };
  }
  if (isConnectionLost(error)) return { code: "PROVIDER_UNAVAILABLE" };
  if (name === "TypeError" && /fetch/i.test(String((error as Error).message))) return { code: "PROVIDER_UNAVAILABLE" };
  return { code: "UNEXPECTED", retryable: false };
}

function errorName(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const name = (error as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}
