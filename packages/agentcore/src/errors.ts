import { createErrorMapper, type ErrorClass, errorName } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/**
 * AgentCore's exceptions (the SDK throws them by these names, over HTTP or
 * inside Invoke's event stream) and the SDK's own failures. Everything else
 * goes by the HTTP status the SDK keeps in `$metadata` and the
 * dropped-connection rules every adapter shares (`createErrorMapper`).
 */
const AGENTCORE_ERRORS: Readonly<Record<string, ErrorClass>> = {
  ValidationException: { code: "INVALID_REQUEST" },
  AccessDeniedException: { code: "AUTH" },
  // AWS's front door, before the service: a missing, malformed or expired signature.
  UnrecognizedClientException: { code: "AUTH" },
  InvalidSignatureException: { code: "AUTH" },
  MissingAuthenticationTokenException: { code: "AUTH" },
  ExpiredTokenException: { code: "AUTH" },
  ResourceNotFoundException: { code: "NOT_FOUND", retryable: false },
  ConflictException: { code: "INVALID_REQUEST" },
  // The concurrent-session quota (1000 per account by default): over it, nothing was started.
  ServiceQuotaExceededException: { code: "RATE_LIMITED", retryable: true, sent: true, outcomeUnknown: false },
  ThrottlingException: { code: "RATE_LIMITED", retryable: true, sent: true, outcomeUnknown: false },
  InternalServerException: { code: "PROVIDER_UNAVAILABLE", retryable: true, sent: true, outcomeUnknown: true },
  // An abort of the call's signal (at its deadline or the caller's abort).
  AbortError: { code: "DEADLINE_EXCEEDED", retryable: true },
  CredentialsProviderError: { code: "AUTH" },
};

/** Maps anything the AgentCore SDK throws, at a site, to a `SandportError` (the vendor error is the `cause`). */
export const mapAgentCoreError = createErrorMapper({
  provider: PROVIDER,
  byName: AGENTCORE_ERRORS,
  classify: (error) => {
    // The node HTTP handler names a reset or broken connection `TimeoutError` too: it may have run.
    if (errorName(error) === "TimeoutError") {
      const code = (error as { code?: unknown }).code;
      return code === "ECONNRESET" || code === "EPIPE"
        ? { code: "PROVIDER_UNAVAILABLE", retryable: true, outcomeUnknown: true }
        : { code: "DEADLINE_EXCEEDED", retryable: true };
    }
    const status = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata?.httpStatusCode;
    if (typeof status !== "number") return undefined;
    if (status === 404) return { code: "NOT_FOUND", retryable: false };
    if (status === 401 || status === 403) return { code: "AUTH" };
    if (status === 429) return { code: "RATE_LIMITED", sent: true, outcomeUnknown: false };
    if (status === 503) return { code: "PROVIDER_UNAVAILABLE", sent: true, outcomeUnknown: false };
    if (status >= 500) return { code: "PROVIDER_UNAVAILABLE", sent: true, outcomeUnknown: true };
    if (status >= 400) return { code: "INVALID_REQUEST", sent: true, outcomeUnknown: false };
    return undefined;
  },
});

/** True when AgentCore reports that the session (or interpreter) does not exist. */
export const isNotFound = mapAgentCoreError.isNotFound;
