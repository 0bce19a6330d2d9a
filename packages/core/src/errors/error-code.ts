/**
 * Stable machine-readable codes carried by every {@link SandportError}.
 *
 * Callers branch on these, never on messages. A code is never renamed; new
 * codes may be added in a minor release.
 */
export const ERROR_CODES = [
  /**
   * The request is malformed or unsafe (bad path, env name, timeout). Refused
   * by Sandport's own checks, nothing was sent (`details.sent` absent);
   * refused by the provider as malformed, it was sent (`details.sent: true`).
   */
  "INVALID_REQUEST",
  /** The runtime cannot do what was asked (missing capability, unenforceable limit). */
  "UNSUPPORTED",
  /** The sandbox, file or command does not exist. */
  "NOT_FOUND",
  /** The sandbox exists but does not carry this runtime's ownership marker. */
  "FOREIGN_SANDBOX",
  /** The operation did not finish before its deadline. Its outcome may be unknown. */
  "DEADLINE_EXCEEDED",
  /** The caller's `AbortSignal` fired. The abort reason is the `cause`. */
  "ABORTED",
  /** The provider refused the request for rate reasons. Retryable; see `retryAfterMs`. */
  "RATE_LIMITED",
  /** The credentials were rejected (HTTP 401/403 or equivalent). */
  "AUTH",
  /**
   * The provider failed or could not be reached (5xx, dropped connection).
   * Usually retryable. An endpoint that refused the connection sent nothing
   * (`details.sent: false`): its outcome is known.
   */
  "PROVIDER_UNAVAILABLE",
  /** The vendor SDK could not be loaded (not installed, wrong version, wrong Node version). */
  "SDK_UNAVAILABLE",
  /** A destroy was attempted but the sandbox could not be proven gone. */
  "DESTROY_UNVERIFIED",
  /**
   * A file is larger than a read may return (`readFile` of more than its
   * `maxBytes`, at most {@link MAX_READ_BYTES}; `readFileStream` of more than
   * the `maxBytes` it was given). Command output past its cap is not an error: the
   * result says `truncated`.
   */
  "OUTPUT_LIMIT",
  /** A runtime's declared capabilities contradict the methods it has (an adapter bug). */
  "CAPABILITY_MISMATCH",
  /** An error that Sandport did not classify (a bug, or a callback that threw). The original is the `cause`. */
  "UNEXPECTED",
] as const;

/** The largest `maxBytes` a `readFile` may ask for, in bytes (2 GiB - 1, the most one buffer read holds); its default is `DEFAULT_READ_MAX_BYTES`. */
export const MAX_READ_BYTES = 2 ** 31 - 1;

/** One of {@link ERROR_CODES}. */
export type SandportErrorCode = (typeof ERROR_CODES)[number];
