import { SandportError } from "@sandport/core";
import { createErrorMapper, httpStatusOf, retryAfterMs } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import { isOutcomeUnknownRequest } from "./transport.js";

/**
 * The SDK throws `APIError` (whose `name` is plain `Error`, so it goes by
 * its HTTP status: 403 `AUTH`, 404 `NOT_FOUND`, 429 `RATE_LIMITED`, 5xx
 * `PROVIDER_UNAVAILABLE`) and `StreamError` when a command's log stream ends
 * early or with an error line: the command's effects are then unknown.
 */
const VERCEL_ERRORS = {
  StreamError: { code: "PROVIDER_UNAVAILABLE", retryable: false },
} as const;

/** Maps anything the SDK throws, at a site, to a `SandportError` (the vendor error is the `cause`). */
export const mapVercelError = createErrorMapper({
  provider: PROVIDER,
  byName: VERCEL_ERRORS,
  classify: (error) => {
    if (isOutcomeUnknownRequest(error)) return { code: "PROVIDER_UNAVAILABLE", retryable: false, outcomeUnknown: true };
    // A session stopping or snapshotting refuses work for a moment (the SDK resumes when it can).
    if (httpStatusOf(error) === 422) return { code: "PROVIDER_UNAVAILABLE", retryable: true };
    return undefined;
  },
  retryAfterMsOf: (error) =>
    retryAfterMs((error as { response?: { headers?: Headers } }).response?.headers?.get?.("retry-after") ?? undefined),
});

/** True when the SDK reports that the sandbox, session, command or file does not exist (404). */
export function isNotFound(error: unknown): boolean {
  if (SandportError.isInstance(error)) return error.code === "NOT_FOUND";
  return httpStatusOf(error) === 404;
}

/** True for Vercel's 400 on creating something whose name or path is taken. */
export function isAlreadyExists(error: unknown): boolean {
  return httpStatusOf(error) === 400 && /already exists/i.test(String((error as Error).message));
}
