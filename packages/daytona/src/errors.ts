import { SandportError } from "@sandport/core";
import {
  classifyHttpStatus,
  createErrorMapper,
  errorName,
  httpStatusOf,
  isConnectionLost,
  retryAfterMs,
} from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/**
 * The SDK's error classes whose meaning does not come from an HTTP status:
 * credentials missing before any request, a transport that failed or timed
 * out on the client, an argument the SDK itself refused. Errors that carry a
 * `statusCode` (every answer from Daytona) go by the status rules every
 * adapter shares (`createErrorMapper`).
 */
const DAYTONA_ERRORS = {
  DaytonaAuthenticationError: "AUTH",
  DaytonaAuthorizationError: "AUTH",
  DaytonaForbiddenError: "AUTH",
  DaytonaInvalidArgumentError: "INVALID_REQUEST",
  DaytonaConnectionError: "PROVIDER_UNAVAILABLE",
  DaytonaConnectionTimeoutError: { code: "DEADLINE_EXCEEDED", retryable: true },
} as const;

/** The `ws` library's refusal of a WebSocket upgrade (log follow), which carries the HTTP status only in its text. */
const REFUSED_UPGRADE = /Unexpected server response: (\d{3})/;

/** Maps anything the Daytona SDK throws, at a site, to a `SandportError` (the vendor error is the `cause`). */
export const mapDaytonaError = createErrorMapper({
  provider: PROVIDER,
  byName: DAYTONA_ERRORS,
  classify: (error) => {
    // An answer whose status was sent but whose body broke off: the connection dropped mid-answer.
    if (brokeOffMidAnswer(error)) return { code: "PROVIDER_UNAVAILABLE" };
    if (httpStatusOf(error) !== undefined) return undefined;
    const upgrade = REFUSED_UPGRADE.exec(String((error as { message?: unknown } | null)?.message ?? ""));
    if (upgrade) return classifyHttpStatus(Number(upgrade[1]));
    const name = errorName(error) ?? "";
    // The SDK's own waits (`waitUntilStarted`, a create's build) time out without a status.
    if (name === "DaytonaTimeoutError") return { code: "DEADLINE_EXCEEDED", retryable: true };
    // A sandbox that ended in state `error` or `build_failed` while the SDK waited for it.
    if (name === "DaytonaError") return { code: "PROVIDER_UNAVAILABLE", retryable: false };
    return undefined;
  },
  retryAfterMsOf: (error) => daytonaRetryAfterMs(error),
});

/** The `Retry-After` of a raw Daytona SDK error (its response headers), in milliseconds. */
export function daytonaRetryAfterMs(error: unknown): number | undefined {
  return retryAfterMs((error as { headers?: Record<string, unknown> } | null)?.headers?.["retry-after"]);
}

/** True when an answer began (a 2xx or 3xx status) and its body broke off: the SDK reports that status. */
function brokeOffMidAnswer(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== undefined && status < 400;
}

/**
 * True when the connection dropped before the whole answer arrived (before
 * it began, or in the middle of its body): whatever the request asked for may
 * have happened.
 */
export function answerLost(error: unknown): boolean {
  const vendor = SandportError.isInstance(error) ? error.cause : error;
  return isConnectionLost(vendor) || brokeOffMidAnswer(vendor) || errorName(vendor) === "DaytonaConnectionError";
}

/** True when Daytona reports that the sandbox, file, session or command does not exist (or no longer does). */
export const isNotFound = mapDaytonaError.isNotFound;

/** The HTTP status Daytona answered, where it answered. */
export function statusOf(error: unknown): number | undefined {
  if (SandportError.isInstance(error)) {
    const status = error.details.status;
    return typeof status === "number" ? status : statusOf(error.cause);
  }
  return httpStatusOf(error);
}

/**
 * True when Daytona provably refused a request before doing its work: 429,
 * or 503 (unavailable). Only then is a request that is not safe to repeat
 * (a command start, an input) sent again.
 */
export function wasRefused(error: unknown): boolean {
  const status = statusOf(error);
  return status === 429 || status === 503;
}
