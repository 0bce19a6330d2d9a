import { SandportError } from "@sandport/core";
import { ApiError, notEmulated } from "./api.js";

/**
 * A backend (port) failure as the API error a VM would answer with. A missing
 * path is `notFound` (404 `FILE_NOT_FOUND` unless the caller says otherwise).
 */
export function fromBackendError(error: unknown, notFound?: ApiError): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (!SandportError.isInstance(error)) return new ApiError(500, "INTERNAL_ERROR", message);
  switch (error.code) {
    case "NOT_FOUND":
      return notFound ?? new ApiError(404, "FILE_NOT_FOUND", message);
    case "INVALID_REQUEST":
      return new ApiError(400, "BAD_REQUEST", message);
    case "UNSUPPORTED":
      return notEmulated(`the emulator's backend cannot do this: ${message}`);
    case "ABORTED":
      return new ApiError(503, "SERVICE_UNAVAILABLE", message);
    case "DEADLINE_EXCEEDED":
      return new ApiError(504, "TIMEOUT", message);
    default:
      return new ApiError(500, "INTERNAL_ERROR", message);
  }
}
