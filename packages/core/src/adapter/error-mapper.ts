import type { SandportErrorCode } from "../errors/error-code.js";
import { SandportError } from "../errors/sandport-error.js";
import {
  classifyHttpStatus,
  type ErrorClass,
  httpStatusOf,
  isConnectionLost,
  isUnreachable,
  transportFacts,
} from "./http-errors.js";

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
   * error code in the body, say), and the place for an adapter whose
   * transport is not plain HTTP (gRPC statuses) to say whether a request was
   * `sent` and whether its outcome is unknown. Return `undefined` to leave it
   * to the rules.
   */
  readonly classify?: (error: unknown) => ErrorClass | undefined;
  /** Reads a `Retry-After` the vendor kept on the error, in ms. */
  readonly retryAfterMsOf?: (error: unknown) => number | undefined;
}

/**
 * Maps anything a vendor SDK throws, at a site, to a `SandportError`; and
 * tells, from what it knows of its transport, whether a failed mutating call
 * (a create) may have taken effect anyway.
 */
export interface ErrorMapper {
  (error: unknown, site: ErrorSite): SandportError;
  /**
   * True when the failed call may have taken effect anyway (its answer was
   * lost, it was cut by a deadline or an abort after it was sent, the
   * provider failed inside), false when it provably did not (refused,
   * answered with an error, never sent). A `SandportError` is judged by its
   * `details.outcomeUnknown` when set, else by its `cause`.
   */
  readonly outcomeUnknown: (error: unknown) => boolean;
  /**
   * True when the error says what was asked for does not exist (or no longer
   * does): a `SandportError` by its code, anything else by what this mapper
   * makes of it (`NOT_FOUND`).
   */
  readonly isNotFound: (error: unknown) => boolean;
}

/** Codes whose error, when nothing more precise is known, leaves a mutation's outcome unknown. */
const UNKNOWN_BY_DEFAULT: ReadonlySet<SandportErrorCode> = new Set([
  "DEADLINE_EXCEEDED",
  "ABORTED",
  "PROVIDER_UNAVAILABLE",
  "UNEXPECTED",
]);

/** What an endpoint that could not be reached means: nothing was sent, so nothing happened. */
const UNREACHABLE_CLASS: ErrorClass = { code: "PROVIDER_UNAVAILABLE", sent: false, outcomeUnknown: false };

/**
 * Builds an adapter's error mapper from a table. In order: a `SandportError`
 * passes through; an endpoint that could not be reached (connection refused,
 * unknown host: `PROVIDER_UNAVAILABLE`, nothing sent); the vendor error name
 * (`byName`); the adapter's own `classify`; the HTTP status
 * (`classifyHttpStatus`: the same rules for every provider); a dropped
 * connection (`PROVIDER_UNAVAILABLE`); else `UNEXPECTED`. The vendor error is
 * kept as `cause`; the details carry the site, the status, the vendor error's
 * name and, when known, whether the request was `sent` (`true` for anything
 * the provider answered, a refused 400 included; `false` when it never left).
 *
 * Whether a failed call's outcome is unknown ({@link ErrorMapper.outcomeUnknown})
 * is the classification's `outcomeUnknown` when it says, else the transport
 * rules (`transportFacts`), else the code: a deadline, an abort, an
 * unavailable provider or an unclassified error leave it unknown.
 */
export function createErrorMapper(options: ErrorMapperOptions): ErrorMapper {
  const { provider } = options;
  const classify = (error: unknown): ErrorClass => {
    if (httpStatusOf(error) === undefined && isUnreachable(error)) {
      return options.classify?.(error) ?? UNREACHABLE_CLASS;
    }
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
  const factsOf = (
    error: unknown,
    found: ErrorClass = classify(error),
  ): { readonly sent: boolean | undefined; readonly outcomeUnknown: boolean } => {
    const transport = transportFacts(error);
    return {
      sent: found.sent ?? transport.sent,
      outcomeUnknown: found.outcomeUnknown ?? transport.outcomeUnknown ?? UNKNOWN_BY_DEFAULT.has(found.code),
    };
  };
  const outcomeUnknown = (error: unknown): boolean => {
    if (!SandportError.isInstance(error)) return factsOf(error).outcomeUnknown;
    const said = error.details.outcomeUnknown;
    if (typeof said === "boolean") return said;
    if (error.details.sent === false) return false;
    return error.cause === undefined ? UNKNOWN_BY_DEFAULT.has(error.code) : outcomeUnknown(error.cause);
  };
  const map = (error: unknown, site: ErrorSite): SandportError => {
    if (SandportError.isInstance(error)) return error;
    const found = classify(error);
    const { code, retryable } = found;
    const { sent } = factsOf(error, found);
    const unreachable = sent === false && isUnreachable(error);
    const raw = error instanceof Error ? error.message : String(error);
    const message = unreachable ? `the endpoint is unreachable, nothing was sent (${raw})` : raw;
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
        ...(sent === undefined ? {} : { sent }),
      },
    });
  };
  const isNotFound = (error: unknown): boolean =>
    (SandportError.isInstance(error) ? error.code : classify(error).code) === "NOT_FOUND";
  return Object.assign(map, { outcomeUnknown, isNotFound });
}

/** `error.name`, when it is a string. */
export function errorName(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const name = (error as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}
