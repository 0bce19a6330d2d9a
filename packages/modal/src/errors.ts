import { SandportError } from "@sandport/core";
import { createErrorMapper, type ErrorClass, errorName } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/**
 * The modal SDK's error classes and what each means. `ConflictError` is what
 * a sandbox object reports once its sandbox has finished ("has already
 * finished"): gone, for this port.
 */
const MODAL_ERRORS = {
  NotFoundError: { code: "NOT_FOUND", retryable: false },
  ConflictError: { code: "NOT_FOUND", retryable: false },
  SandboxFilesystemNotFoundError: { code: "NOT_FOUND", retryable: false },
  SandboxFilesystemFileTooLargeError: "OUTPUT_LIMIT",
  SandboxFilesystemIsADirectoryError: "INVALID_REQUEST",
  SandboxFilesystemNotADirectoryError: "INVALID_REQUEST",
  SandboxFilesystemPathAlreadyExistsError: "INVALID_REQUEST",
  SandboxFilesystemDirectoryNotEmptyError: "INVALID_REQUEST",
  SandboxFilesystemPermissionError: "INVALID_REQUEST",
  InvalidError: "INVALID_REQUEST",
  AlreadyExistsError: "INVALID_REQUEST",
  TimeoutError: { code: "DEADLINE_EXCEEDED", retryable: true },
  SandboxTimeoutError: { code: "DEADLINE_EXCEEDED", retryable: true },
  ResourceExhaustedError: "PROVIDER_UNAVAILABLE",
  InternalFailure: "PROVIDER_UNAVAILABLE",
  AbortError: { code: "DEADLINE_EXCEEDED", retryable: true },
} as const;

/** gRPC status codes (nice-grpc's `ClientError.code`) and what each means. */
const GRPC_CODES: Readonly<Record<number, ErrorClass>> = {
  1: { code: "PROVIDER_UNAVAILABLE" }, // CANCELLED (by the server or the connection)
  2: { code: "PROVIDER_UNAVAILABLE" }, // UNKNOWN
  3: { code: "INVALID_REQUEST" }, // INVALID_ARGUMENT
  4: { code: "DEADLINE_EXCEEDED", retryable: true },
  5: { code: "NOT_FOUND", retryable: false },
  6: { code: "INVALID_REQUEST" }, // ALREADY_EXISTS
  7: { code: "AUTH" }, // PERMISSION_DENIED
  8: { code: "RATE_LIMITED" }, // RESOURCE_EXHAUSTED
  9: { code: "INVALID_REQUEST" }, // FAILED_PRECONDITION
  10: { code: "PROVIDER_UNAVAILABLE" }, // ABORTED
  11: { code: "INVALID_REQUEST" }, // OUT_OF_RANGE
  12: { code: "UNSUPPORTED" }, // UNIMPLEMENTED
  13: { code: "PROVIDER_UNAVAILABLE" }, // INTERNAL
  14: { code: "PROVIDER_UNAVAILABLE" }, // UNAVAILABLE
  15: { code: "PROVIDER_UNAVAILABLE", retryable: false }, // DATA_LOSS
  16: { code: "AUTH" }, // UNAUTHENTICATED
};

/**
 * What the SDK's filesystem calls raise (a `SandboxFilesystemError`, without
 * the status or a cause) when the command router answered with a gRPC status
 * it does not call "unavailable": RESOURCE_EXHAUSTED, the router's rate limit,
 * and INTERNAL or ABORTED once the SDK's own retries are spent. All of them
 * pass; the one a router sends under load is RESOURCE_EXHAUSTED.
 */
const ROUTER_REFUSED = /^An unexpected error occurred, please contact support@modal\.com/;

/** The gRPC status code of a nice-grpc `ClientError` the SDK passed through, else `undefined`. */
export function grpcCodeOf(error: unknown): number | undefined {
  if (errorName(error) !== "ClientError") return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" ? code : undefined;
}

/** Maps anything the modal SDK throws, at a site, to a `SandportError` (the vendor error is the `cause`). */
export const mapModalError = createErrorMapper({
  provider: PROVIDER,
  byName: MODAL_ERRORS,
  classify: (error) => {
    const code = grpcCodeOf(error);
    if (code !== undefined) return GRPC_CODES[code];
    if (errorName(error) === "SandboxFilesystemError" && error instanceof Error && ROUTER_REFUSED.test(error.message)) {
      return { code: "RATE_LIMITED" };
    }
    // The SDK's own deadlines on exec streams and waits are plain errors.
    if (error instanceof Error && /^Deadline exceeded\b/.test(error.message)) {
      return { code: "DEADLINE_EXCEEDED", retryable: true };
    }
    return undefined;
  },
});

/** True when the SDK reports that the sandbox, file or exec does not exist (or the sandbox has finished). */
export function isNotFound(error: unknown): boolean {
  if (SandportError.isInstance(error)) return error.code === "NOT_FOUND";
  return mapModalError(error, { operation: "classify" }).code === "NOT_FOUND";
}
