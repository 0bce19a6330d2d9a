import type { SandportErrorCode } from "../errors/error-code.js";
import { SandportError } from "../errors/sandport-error.js";
import { classifyHttpStatus, type ErrorClass, httpStatusOf, isConnectionLost } from "./http-errors.js";

/** Where an error happened: named in its message and details. */
export interface ErrorSite {
  /** The port method or provider call (`"launch"`, `"readFile"`, `"background cleanup"`). */
  readonly operation: string;
  /** The sandbox involved, if any. */
  readonly sandboxId?: string;
  /** The path involved, if any. */
  readonly path?: string;
}

/** How one adapter's vendor errors map onto codes. */
export interface ErrorMapperOptions {
  /** Provider name, stamped on every error. */
  readonly provider: string;
  /**
   * The vendor's error class names (`error.name`) and what each means: a code,
   * or a code with its retryability. Looked at before the HTTP status.
   */
  readonly byName?: Readonly<Record<string, SandportErrorCode | ErrorClass>>;
  /**
   * A last look for what neither the name nor the status decides (a vendor
   * error code in the body, say). Return `undefined` to leave it to the rules.
   */
  readonly classify?: (error: unknown) => ErrorClass | undefined;
  /** Reads a `Retry-After` the vendor kept on the error, in ms. */
  readonly retryAfterMsOf?: (error: unknown) => number | undefined;
}

/** Maps anything a vendor SDK throws, at a site, to a `SandportError`. */
export type ErrorMapper = (error: unknown, site: ErrorSite) => SandportError;

/**
 * Builds an adapter's error mapper from a table. In order: a `SandportError`
 * passes through; the vendor error name (`byName`); the adapter's own
 * `classify`; the HTTP status (`classifyHttpStatus`: the same rules for every
 * provider); a dropped connection (`PROVIDER_UNAVAILABLE`); else `UNEXPECTED`.
 * The vendor error is kept as `cause`; the details carry the site, the status
 * and the vendor error's name.
 */
export function createErrorMapper(options: ErrorMapperOptions): ErrorMapper {
  const { provider } = options;
  const classify = (error: unknown): ErrorClass => {
    const name = errorName(error);
    const named = name === undefined ? undefined : options.byName?.[name];
    if (named !== undefined) return typeof named === "string" ? { code: named } : named;
    const custom = options.classify?.(error);
    if (custom) return custom;
    const status = httpStatusOf(error);
    const byStatus = status === undefined ? undefined : classifyHttpStatus(status);
    if (byStatus) return byStatus;
    if (isConnectionLost(error)) return { code: "PROVIDER_UNAVAILABLE" };
    return { code: "UNEXPECTED", retryable: false };
  };
  return (error, site) => {
    if (SandportError.isInstance(error)) return error;
    const { code, retryable } = classify(error);
    const message = error instanceof Error ? error.message : String(error);
    const status = httpStatusOf(error);
    const name = errorName(error);
    const retryAfterMs = options.retryAfterMsOf?.(error);
    const where = site.sandboxId ? ` (sandbox ${site.sandboxId}${site.path ? `, ${site.path}` : ""})` : "";
    return new SandportError({
      code,
      provider,
      ...(retryable === undefined ? {} : { retryable }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      cause: error,
      message: `${provider} ${site.operation} failed${where}: ${message}`,
      details: {
        operation: site.operation,
        ...(site.sandboxId ? { sandboxId: site.sandboxId } : {}),
        ...(site.path ? { path: site.path } : {}),
        ...(status === undefined ? {} : { status }),
        ...(name === undefined ? {} : { vendorError: name }),
      },
    });
  };
}

/** `error.name`, when it is a string. */
export function errorName(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const name = (error as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}
