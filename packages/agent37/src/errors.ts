import { createErrorMapper, type ErrorClass, errorName } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/**
 * Agent37's error codes (hosting `error.code`, the instance edge's flat
 * `error`) that say more than their status. Branch on the code, never on
 * the status alone: 409 carries both `try_again` and `instance_limit_reached`.
 */
const AGENT37_CODES: Readonly<Record<string, ErrorClass>> = {
  // Refused before anything ran: safe to repeat.
  no_capacity: { code: "PROVIDER_UNAVAILABLE", retryable: true, outcomeUnknown: false },
  try_again: { code: "PROVIDER_UNAVAILABLE", retryable: true, outcomeUnknown: false },
  rate_limited: { code: "RATE_LIMITED", retryable: true, outcomeUnknown: false },
  container_unreachable: { code: "PROVIDER_UNAVAILABLE", retryable: true },
  upstream_unreachable: { code: "PROVIDER_UNAVAILABLE", retryable: true },
  host_mesh_not_ready: { code: "PROVIDER_UNAVAILABLE", retryable: true },
  instance_saturated: { code: "PROVIDER_UNAVAILABLE", retryable: true },
  wake_timeout: { code: "PROVIDER_UNAVAILABLE", retryable: true },
  upstream_timeout: { code: "PROVIDER_UNAVAILABLE", retryable: true },
  // Also what an exec past the service's time cap answers: the command ran (and may run on);
  // a repeat would run it twice. Never retried.
  provisioning_failed: { code: "PROVIDER_UNAVAILABLE", retryable: false, outcomeUnknown: true },
  // The instance is stopped: start fixes it, a retry cannot.
  container_unavailable: { code: "PROVIDER_UNAVAILABLE", retryable: false, outcomeUnknown: false },
  capacity_unavailable: { code: "PROVIDER_UNAVAILABLE", retryable: false, outcomeUnknown: false },
  invalid_api_key: { code: "AUTH" },
  insufficient_balance: { code: "AUTH" },
  ip_not_allowed: { code: "AUTH" },
  tier_limit: { code: "AUTH" },
  instance_limit_reached: { code: "INVALID_REQUEST", retryable: false },
  not_found: { code: "NOT_FOUND", retryable: false },
  instance_not_found: { code: "NOT_FOUND", retryable: false },
  file_not_found: { code: "NOT_FOUND", retryable: false },
  invalid_request: { code: "INVALID_REQUEST" },
  validation_error: { code: "INVALID_REQUEST" },
  payload_too_large: { code: "INVALID_REQUEST" },
};

/** Maps anything the client (or `fetch`) throws, at a site, to a `SandportError` (the original is the `cause`). */
export const mapAgent37Error = createErrorMapper({
  provider: PROVIDER,
  byName: {
    TimeoutError: { code: "DEADLINE_EXCEEDED", retryable: true },
    AbortError: { code: "DEADLINE_EXCEEDED", retryable: true },
    Agent37MalformedAnswer: { code: "UNEXPECTED", retryable: false },
  },
  classify: (error) => {
    if (errorName(error) !== "Agent37ApiError") return undefined;
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? AGENT37_CODES[code] : undefined;
  },
  retryAfterMsOf: (error) =>
    errorName(error) === "Agent37ApiError" ? (error as { retryAfterMs?: number }).retryAfterMs : undefined,
});

/** True when Agent37 says the instance or the file does not exist. */
export const isNotFound = mapAgent37Error.isNotFound;

/** True when the error is Agent37's `provisioning_failed`: never repeated (see `AGENT37_CODES`). */
export function isProvisioningFailed(error: unknown): boolean {
  return errorName(error) === "Agent37ApiError" && (error as { code?: unknown }).code === "provisioning_failed";
}
