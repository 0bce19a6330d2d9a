import type { SandportErrorCode } from "./error-code.js";

const MARKER = Symbol.for("sandport.error");

/** Codes that are retryable unless the thrower says otherwise. */
const RETRYABLE_BY_DEFAULT: ReadonlySet<SandportErrorCode> = new Set(["RATE_LIMITED", "PROVIDER_UNAVAILABLE"]);

/** Options accepted by {@link SandportError}'s constructor. */
export interface SandportErrorOptions {
  /** Stable code; see {@link SandportErrorCode}. */
  readonly code: SandportErrorCode;
  /** Human-readable explanation. Say what was refused and why; never include credentials. */
  readonly message: string;
  /** Provider name (`"local"`, `"e2b"`, ...), or `"sandport"` for errors raised before any provider is involved. */
  readonly provider?: string;
  /** Whether repeating the same call may succeed. Defaults to `true` for `RATE_LIMITED` and `PROVIDER_UNAVAILABLE`. */
  readonly retryable?: boolean;
  /** Milliseconds the provider asked us to wait before retrying (from `Retry-After`). */
  readonly retryAfterMs?: number;
  /** The original error (vendor SDK error, abort reason, system error). */
  readonly cause?: unknown;
  /** Structured, non-secret context (the offending field, the limit, the operation). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * The one error class Sandport throws.
 *
 * Recognise it with {@link SandportError.isInstance} rather than `instanceof`:
 * the marker survives duplicated copies of `@sandport/core` in one process.
 */
export class SandportError extends Error {
  static {
    // A bundler may rename the class (esbuild emits `class _SandportError` for a class whose statics name
    // it); Node prints the constructor's name for an uncaught error, so pin the one users see.
    Object.defineProperty(SandportError, "name", { value: "SandportError" });
  }

  /** Stable machine-readable code. */
  readonly code: SandportErrorCode;
  /** Provider that raised the error, or `"sandport"`. */
  readonly provider: string;
  /** Whether repeating the same call may succeed. */
  readonly retryable: boolean;
  /** Milliseconds to wait before a retry, when the provider said so. */
  readonly retryAfterMs: number | undefined;
  /** Structured, non-secret context. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(options: SandportErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SandportError";
    this.code = options.code;
    this.provider = options.provider ?? "sandport";
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(options.code);
    this.retryAfterMs = options.retryAfterMs;
    this.details = options.details ?? {};
    // Non-enumerable, so it stays out of logs and JSON while isInstance can see it.
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for any `SandportError`, including one from another copy of this package. */
  static isInstance(value: unknown): value is SandportError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** True when `value` is a `SandportError` with the given code. */
  static hasCode(value: unknown, code: SandportErrorCode): value is SandportError {
    return SandportError.isInstance(value) && value.code === code;
  }
}
