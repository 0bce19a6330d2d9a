import { createErrorMapper, type ErrorClass, errorName } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/**
 * An answer of the Kubernetes API server, sandboxd's REST API or the router
 * that is not a success: its HTTP `status`, the `reason` of a Kubernetes
 * `Status` (`NotFound`, `AlreadyExists`, `Conflict`, `Expired`…) or
 * sandboxd's `code` (`NOT_FOUND`, `PERMISSION_DENIED`…), and its message.
 */
export class KubernetesApiError extends Error {
  override readonly name = "KubernetesApiError";
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** `Status.reason` or sandboxd's `code`, when the body had one. */
    readonly reason: string | undefined,
    message: string,
    /** `Retry-After`, in ms, when the answer had one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** A gRPC call to sandboxd that ended with a non-zero `grpc-status`. */
export class GrpcStatusError extends Error {
  override readonly name = "GrpcStatusError";
  constructor(
    /** The gRPC status code (`14` UNAVAILABLE, `5` NOT_FOUND…). */
    readonly grpcStatus: number,
    message: string,
    /** Whether the request left this process (false: the connection could not be made). */
    readonly sent: boolean,
    /** Whether the server answered this status itself (`grpc-status` in its trailers), rather than the stream breaking. */
    readonly answered = false,
  ) {
    super(message);
  }
}

/** An answer that is not what the API documents (a body that is not JSON, a frame cut short). */
export class KubernetesMalformedAnswer extends Error {
  override readonly name = "KubernetesMalformedAnswer";
}

/** gRPC status codes and what they mean here (https://grpc.io/docs/guides/status-codes/). */
const GRPC_CODES: Readonly<Record<number, ErrorClass>> = {
  1: { code: "ABORTED", retryable: false },
  3: { code: "INVALID_REQUEST", retryable: false, outcomeUnknown: false },
  4: { code: "DEADLINE_EXCEEDED", retryable: true },
  5: { code: "NOT_FOUND", retryable: false, outcomeUnknown: false },
  7: { code: "AUTH", retryable: false, outcomeUnknown: false },
  8: { code: "RATE_LIMITED", retryable: true, outcomeUnknown: false },
  9: { code: "INVALID_REQUEST", retryable: false, outcomeUnknown: false },
  12: { code: "UNSUPPORTED", retryable: false, outcomeUnknown: false },
  13: { code: "PROVIDER_UNAVAILABLE", retryable: false },
  14: { code: "PROVIDER_UNAVAILABLE", retryable: true },
  16: { code: "AUTH", retryable: false, outcomeUnknown: false },
};

/** Maps anything the clients (or the transport) throw, at a site, to a `SandportError` (the original is the `cause`). */
export const mapKubernetesError = createErrorMapper({
  provider: PROVIDER,
  byName: {
    TimeoutError: { code: "DEADLINE_EXCEEDED", retryable: true },
    AbortError: { code: "DEADLINE_EXCEEDED", retryable: true },
    KubernetesMalformedAnswer: { code: "UNEXPECTED", retryable: false },
  },
  classify: (error) => {
    const name = errorName(error);
    if (name === "GrpcStatusError") {
      const { grpcStatus, sent } = error as GrpcStatusError;
      const known = GRPC_CODES[grpcStatus] ?? { code: "UNEXPECTED", retryable: false };
      return sent ? known : { ...known, sent: false, outcomeUnknown: false };
    }
    if (name !== "KubernetesApiError") return undefined;
    const { status, reason } = error as KubernetesApiError;
    // 409 AlreadyExists on a create: the name is taken (by an earlier attempt of ours, or another's).
    if (status === 409 && reason === "AlreadyExists") return { code: "INVALID_REQUEST", retryable: false };
    // 409 Conflict: a stale resourceVersion; reading again and repeating is safe.
    if (status === 409 && reason === "Conflict") return { code: "PROVIDER_UNAVAILABLE", retryable: true };
    // 410 Expired is a stale watch or list version, not a missing object.
    if (status === 410 && reason === "Expired") return { code: "PROVIDER_UNAVAILABLE", retryable: true };
    // sandboxd: a path that escapes the workspace.
    if (reason === "PERMISSION_DENIED") return { code: "INVALID_REQUEST", retryable: false };
    // The router could not reach the pod (suspended, gone, still starting).
    if (status === 502) return { code: "PROVIDER_UNAVAILABLE", retryable: true };
    return undefined;
  },
  retryAfterMsOf: (error) =>
    errorName(error) === "KubernetesApiError" ? (error as KubernetesApiError).retryAfterMs : undefined,
});

/** True when the API server, sandboxd or gRPC says the object, path or process does not exist. */
export const isNotFound = mapKubernetesError.isNotFound;

/** True when the error is the API server's (or sandboxd's) answer with this HTTP status. */
export function hasStatus(error: unknown, status: number): boolean {
  return errorName(error) === "KubernetesApiError" && (error as KubernetesApiError).status === status;
}
