/**
 * Errors in the cloud API's envelope, `{ "error": { "code", "message", "details" } }`.
 * The SDK maps codes before statuses: `sandbox_not_found` → `SandboxNotFoundError`,
 * `name_already_exists` → `SandboxAlreadyExistsError`, `invalid_request` and
 * `invalid_sandbox_config` → `InvalidConfigError`, `orchestrator_unreachable`
 * → `RuntimeError`; anything else by status (400/422 invalid config, 404 not
 * found, 502 runtime), else `CloudHttpError`.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { ErrorReplier } from "../harness/router.js";

/** Stable error codes the emulator answers with. */
export type CloudErrorCode =
  | "invalid_api_key"
  | "invalid_request"
  | "invalid_sandbox_config"
  | "sandbox_not_found"
  | "name_already_exists"
  | "invalid_state_transition"
  | "sandbox_not_running"
  | "rate_limited"
  | "orchestrator_unreachable"
  | "internal_error"
  | "not_emulated"
  | "service_unavailable";

/** The error body for a status and code. */
export function errorBody(code: CloudErrorCode, message: string) {
  return { error: { code, message, details: null } };
}

/** Answer a REST request with the cloud's error envelope. */
export function replyError(
  exchange: Exchange,
  status: number,
  code: CloudErrorCode,
  message: string,
  headers: Record<string, string> = {},
): void {
  exchange.json(status, errorBody(code, message), headers);
}

/** The code the cloud would send with a status the harness produces on its own (faults, crashes). */
export function codeForStatus(status: number): CloudErrorCode {
  switch (status) {
    case 400:
      return "invalid_request";
    case 401:
      return "invalid_api_key";
    case 404:
      return "sandbox_not_found";
    case 409:
      return "invalid_state_transition";
    case 429:
      return "rate_limited";
    case 502:
      return "orchestrator_unreachable";
    case 503:
      return "service_unavailable";
    default:
      return "internal_error";
  }
}

/** The error shape of every route (the agent route's refused handshakes too), for the harness (status faults, handler crashes). */
export const cloudErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  replyError(
    exchange,
    status,
    codeForStatus(status),
    message,
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  );
};

/** True when the `Authorization` header carries exactly `Bearer <apiKey>`. */
export function hasApiKey(authorization: string | undefined, apiKey: string): boolean {
  return authorization === `Bearer ${apiKey}`;
}
