import { SandportError } from "@sandport/core";

/** gRPC status codes by name (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export const GRPC_CODES = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** A gRPC status code name. */
export type GrpcCodeName = keyof typeof GRPC_CODES;

/** An error a handler throws to end its call with a gRPC status. */
export class GrpcError extends Error {
  readonly code: GrpcCodeName;
  /** When set, the status carries Modal's `RPCRetryPolicy` detail, which the SDK obeys by waiting and retrying. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: GrpcCodeName, message: string, options: { retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = "GrpcError";
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

const HTTP_STATUS: Record<GrpcCodeName, number> = {
  OK: 200,
  CANCELLED: 499,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 412,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
  UNAUTHENTICATED: 401,
};

/**
 * The HTTP status that names a gRPC outcome in request records (a gRPC
 * response itself is always HTTP 200): 200 for OK, 404 for NOT_FOUND, 429 for
 * RESOURCE_EXHAUSTED, 503 for UNAVAILABLE, ...
 */
export function httpStatusOf(code: GrpcCodeName): number {
  return HTTP_STATUS[code];
}

/** The gRPC code an injected HTTP status fault is answered with. */
export function codeForHttpStatus(status: number): GrpcCodeName {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ALREADY_EXISTS";
    case 412:
      return "FAILED_PRECONDITION";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 499:
      return "CANCELLED";
    case 500:
      return "INTERNAL";
    case 501:
      return "UNIMPLEMENTED";
    case 502:
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status < 500 ? "FAILED_PRECONDITION" : "UNKNOWN";
  }
}

/** Any thrown value as a {@link GrpcError}; a backend (port) failure keeps its meaning. */
export function toGrpcError(error: unknown): GrpcError {
  if (error instanceof GrpcError) return error;
  if (SandportError.isInstance(error)) return new GrpcError(codeOfSandportError(error), error.message);
  return new GrpcError("INTERNAL", `emulator error: ${messageOf(error)}`);
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function codeOfSandportError(error: SandportError): GrpcCodeName {
  switch (error.code) {
    case "NOT_FOUND":
      return "NOT_FOUND";
    case "INVALID_REQUEST":
      return "INVALID_ARGUMENT";
    case "UNSUPPORTED":
      return "UNIMPLEMENTED";
    case "DEADLINE_EXCEEDED":
      return "DEADLINE_EXCEEDED";
    case "ABORTED":
      return "CANCELLED";
    case "AUTH":
      return "PERMISSION_DENIED";
    case "OUTPUT_LIMIT":
    case "RATE_LIMITED":
      return "RESOURCE_EXHAUSTED";
    case "PROVIDER_UNAVAILABLE":
      return "UNAVAILABLE";
    default:
      return "INTERNAL";
  }
}
