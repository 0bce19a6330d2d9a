import { classifyHttpStatus, createErrorMapper, type ErrorClass, errorName } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/**
 * The microsandbox SDK's error classes and what each means. The SDK raises
 * `CloudHttpError` for every cloud status it has no class for, with the
 * status in its message (`cloud HTTP 429: ...`), which the shared status
 * rules read; it never retries, and keeps no `Retry-After`.
 */
const MICROSANDBOX_ERRORS = {
  SandboxNotFoundError: { code: "NOT_FOUND", retryable: false },
  // The sandbox this call meant was removed and its name reused.
  SandboxReplacedError: { code: "NOT_FOUND", retryable: false },
  SandboxAlreadyExistsError: "INVALID_REQUEST",
  SandboxNotRunningError: "INVALID_REQUEST",
  SandboxStillRunningError: "INVALID_REQUEST",
  InvalidConfigError: "INVALID_REQUEST",
  ImageNotFoundError: "INVALID_REQUEST",
  UnsupportedError: "UNSUPPORTED",
  UnsupportedOperationError: "UNSUPPORTED",
  ExecTimeoutError: { code: "DEADLINE_EXCEEDED", retryable: true },
  // A request that never got an answer (connection refused, reset, timed out): its outcome is unknown.
  HttpError: "PROVIDER_UNAVAILABLE",
  ProtocolError: "PROVIDER_UNAVAILABLE",
  ImageError: "PROVIDER_UNAVAILABLE",
  LibkrunfwNotFoundError: { code: "SDK_UNAVAILABLE", retryable: false },
} as const;

/** `(os error N)` at the end of agentd's messages: the errno of a failed guest call. */
const OS_ERROR = /\(os error (\d+)\)/;

/**
 * What an errno from the guest means: `ENOENT` is absence; a path of the
 * wrong kind or one that exists already is the caller's request; anything
 * else (permissions, I/O) is unexpected.
 */
function classifyErrno(errno: number): ErrorClass {
  if (errno === 2) return { code: "NOT_FOUND", retryable: false };
  // EEXIST, ENOTDIR, EISDIR, EINVAL, ENOTEMPTY, ENAMETOOLONG, ELOOP
  if ([17, 20, 21, 22, 36, 39, 40].includes(errno)) return { code: "INVALID_REQUEST" };
  return { code: "UNEXPECTED", retryable: false };
}

/**
 * A connection lost under a call, as the SDK words it: the agent client's
 * plain `Error`s (`reader closed before response for id=N` when the agent's
 * WebSocket closes with requests in flight, `io error: ... closed connection`
 * when it is used after that, and a file call's `channel closed before
 * response`) and the cloud client's body cut short (`error decoding response
 * body`). The call's outcome is unknown.
 */
const CONNECTION_LOST =
  /agent client error: (reader closed before response|protocol: io error)|channel closed before response|error decoding response body/;

/** An agent handshake the cloud refused over HTTP: `... cloud agent websocket: HTTP error: 429 Too Many Requests`. */
const HANDSHAKE_STATUS = /\bHTTP error: (\d{3})\b/;

/**
 * The SDK's `RuntimeError`: the orchestrator unreachable (502), a failed agent
 * handshake, an agent session that ended early. A handshake refused with a
 * status goes by that status (a 429 is the cloud's rate limit); the rest is
 * the provider being unavailable.
 */
function classifyRuntimeError(message: string): ErrorClass {
  const status = HANDSHAKE_STATUS.exec(message);
  const byStatus = status ? classifyHttpStatus(Number(status[1])) : undefined;
  return byStatus ?? { code: "PROVIDER_UNAVAILABLE" };
}

/**
 * Errors the SDK passes through unmapped: a lost connection (see
 * {@link CONNECTION_LOST}); agentd's `core.exec.failed` (a command that never
 * ran) arrives as a plain `Error` named `[ExecFailed] ...`.
 */
function classify(error: unknown): ErrorClass | undefined {
  const message = error instanceof Error ? error.message : "";
  if (CONNECTION_LOST.test(message)) return { code: "PROVIDER_UNAVAILABLE" };
  if (errorName(error) === "RuntimeError") return classifyRuntimeError(message);
  const fsOrExec = errorName(error) === "SandboxFsOpsError" || message.startsWith("[ExecFailed]");
  if (!fsOrExec) return undefined;
  const errno = OS_ERROR.exec(message);
  return errno ? classifyErrno(Number(errno[1])) : { code: "UNEXPECTED", retryable: false };
}

/** Maps anything the microsandbox SDK throws, at a site, to a `SandportError` (the vendor error is the `cause`). */
export const mapMicrosandboxError = createErrorMapper({ provider: PROVIDER, byName: MICROSANDBOX_ERRORS, classify });

/** True when the SDK (or an already mapped error) says the sandbox, file or directory does not exist. */
export const isNotFound = mapMicrosandboxError.isNotFound;

/** True for the SDK's not-found of a sandbox (as opposed to a file in it). */
export function isSandboxNotFound(error: unknown): boolean {
  const name = errorName(error);
  return name === "SandboxNotFoundError" || name === "SandboxReplacedError";
}

/** True when a guest filesystem call failed because the path is a directory (`EISDIR`). */
export function isDirectoryError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return errorName(error) === "SandboxFsOpsError" && OS_ERROR.exec(message)?.[1] === "21";
}
