import { createErrorMapper, type ErrorClass, errorName, isUnreachable } from "@sandport/core/adapter";
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

/**
 * gRPC status codes (nice-grpc's `ClientError.code`) and what each means. A
 * status the server answered says the call was sent (`sent: true`); after
 * these a create may have run anyway (`outcomeUnknown`): the call was cut by
 * our abort or its deadline (`CANCELLED`, `DEADLINE_EXCEEDED`), failed inside
 * the server (`UNKNOWN`, `ABORTED`, `INTERNAL`, `DATA_LOSS`), or the
 * connection failed without saying when (`UNAVAILABLE`; one that never
 * connected is unreachable, see {@link mapModalError}).
 */
const GRPC_CODES: Readonly<Record<number, ErrorClass>> = {
  1: { code: "PROVIDER_UNAVAILABLE", outcomeUnknown: true }, // CANCELLED (by our abort, the server or the connection)
  2: { code: "PROVIDER_UNAVAILABLE", outcomeUnknown: true }, // UNKNOWN
  3: { code: "INVALID_REQUEST", sent: true, outcomeUnknown: false }, // INVALID_ARGUMENT
  4: { code: "DEADLINE_EXCEEDED", retryable: true, outcomeUnknown: true },
  5: { code: "NOT_FOUND", retryable: false, sent: true, outcomeUnknown: false },
  6: { code: "INVALID_REQUEST", sent: true, outcomeUnknown: false }, // ALREADY_EXISTS
  7: { code: "AUTH", sent: true, outcomeUnknown: false }, // PERMISSION_DENIED
  8: { code: "RATE_LIMITED", sent: true, outcomeUnknown: false }, // RESOURCE_EXHAUSTED
  9: { code: "INVALID_REQUEST", sent: true, outcomeUnknown: false }, // FAILED_PRECONDITION
  10: { code: "PROVIDER_UNAVAILABLE", sent: true, outcomeUnknown: true }, // ABORTED
  11: { code: "INVALID_REQUEST", sent: true, outcomeUnknown: false }, // OUT_OF_RANGE
  12: { code: "UNSUPPORTED", sent: true, outcomeUnknown: false }, // UNIMPLEMENTED
  13: { code: "PROVIDER_UNAVAILABLE", sent: true, outcomeUnknown: true }, // INTERNAL
  14: { code: "PROVIDER_UNAVAILABLE", outcomeUnknown: true }, // UNAVAILABLE
  15: { code: "PROVIDER_UNAVAILABLE", retryable: false, sent: true, outcomeUnknown: true }, // DATA_LOSS
  16: { code: "AUTH", sent: true, outcomeUnknown: false }, // UNAUTHENTICATED
};

/** A channel that never connected (refused, unknown host): nothing was sent. */
const UNREACHABLE: ErrorClass = { code: "PROVIDER_UNAVAILABLE", sent: false, outcomeUnknown: false };

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

/**
 * Maps anything the modal SDK throws, at a site, to a `SandportError` (the
 * vendor error is the `cause`). Its `outcomeUnknown` reads the gRPC status:
 * a create cut by its deadline (4) or our abort (1), or lost with the
 * connection (14), may have created a sandbox; a channel that never
 * connected (`UNAVAILABLE` with the connect error) sent nothing.
 */
export const mapModalError = createErrorMapper({
  provider: PROVIDER,
  byName: MODAL_ERRORS,
  classify: (error) => {
    const code = grpcCodeOf(error);
    if (code === 14 && isUnreachable(error)) return UNREACHABLE;
    if (code !== undefined) return GRPC_CODES[code];
    if (errorName(error) === "SandboxFilesystemError" && error instanceof Error && ROUTER_REFUSED.test(error.message)) {
      return { code: "RATE_LIMITED", sent: true, outcomeUnknown: false };
    }
    // The SDK's own deadlines on exec streams and waits are plain errors.
    if (error instanceof Error && /^Deadline exceeded\b/.test(error.message)) {
      return { code: "DEADLINE_EXCEEDED", retryable: true };
    }
    return undefined;
  },
});

/** True when the SDK reports that the sandbox, file or exec does not exist (or the sandbox has finished). */
export const isNotFound = mapModalError.isNotFound;
