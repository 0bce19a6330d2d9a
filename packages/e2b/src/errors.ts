import { createErrorMapper, errorName } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/**
 * The e2b SDK's error classes and what each means. Everything else goes by
 * the HTTP status and the dropped-connection rules every adapter shares
 * (`createErrorMapper`). `RateLimitError` reaches us only after the SDK has
 * honoured `Retry-After` `rateLimitRetries` times (it does not expose the header).
 */
const E2B_ERRORS = {
  AuthenticationError: "AUTH",
  GitAuthError: "AUTH",
  RateLimitError: "RATE_LIMITED",
  // Its 503: the API refused the request, so a create made nothing.
  ServiceBusyError: { code: "PROVIDER_UNAVAILABLE", sent: true, outcomeUnknown: false },
  NotFoundError: { code: "NOT_FOUND", retryable: false },
  FileNotFoundError: { code: "NOT_FOUND", retryable: false },
  SandboxNotFoundError: { code: "NOT_FOUND", retryable: false },
  TimeoutError: { code: "DEADLINE_EXCEEDED", retryable: true },
  AbortError: { code: "DEADLINE_EXCEEDED", retryable: true },
  InvalidArgumentError: "INVALID_REQUEST",
  TemplateError: "UNSUPPORTED",
  NotEnoughSpaceError: { code: "PROVIDER_UNAVAILABLE", retryable: false },
} as const;

/** Maps anything the e2b SDK throws, at a site, to a `SandportError` (the vendor error is the `cause`). */
export const mapE2BError = createErrorMapper({
  provider: PROVIDER,
  byName: E2B_ERRORS,
  // Node's fetch reports an unreachable host as a bare `TypeError: fetch failed`.
  classify: (error) =>
    errorName(error) === "TypeError" && /fetch/i.test(String((error as Error).message))
      ? { code: "PROVIDER_UNAVAILABLE" }
      : undefined,
});

/** True when the SDK reports that the sandbox, file or process does not exist. */
export const isNotFound = mapE2BError.isNotFound;

/**
 * True for the SDK's `SandboxNotFoundError`, which envd also answers for
 * every "unavailable" reply (429/502/503/504): the sandbox may still exist.
 */
export function isSandboxNotFound(error: unknown): boolean {
  return errorName(error) === "SandboxNotFoundError";
}
