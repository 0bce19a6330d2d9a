import { MAX_READ_BYTES } from "../errors/error-code.js";
import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { OpOptions } from "../port/op-options.js";
import { DEFAULT_READ_MAX_BYTES, READ_OPTION_KEYS, type ReadOptions } from "../port/read-options.js";
import { refuseUnknownShape } from "./known-keys.js";
import { validateOpOptions } from "./requests.js";

/** A `readFile` call's options after validation: the common options apart, the cap resolved. */
export interface ValidatedReadOptions {
  /** The common per-call options (`signal`, `timeoutMs`), `maxBytes` removed. */
  readonly op: OpOptions | undefined;
  /** The largest file the call returns: the caller's `maxBytes`, else {@link DEFAULT_READ_MAX_BYTES}. */
  readonly maxBytes: number;
}

/**
 * Validates `readFile` options: no key beyond {@link READ_OPTION_KEYS}, the
 * common ones as `validateOpOptions` does, and `maxBytes` an integer from 0 to
 * `MAX_READ_BYTES` (`INVALID_REQUEST` otherwise, before any provider call).
 */
export function validateReadOptions(op: unknown, provider?: string): ValidatedReadOptions {
  if (op === undefined) return { op: undefined, maxBytes: DEFAULT_READ_MAX_BYTES };
  refuseUnknownShape(op, READ_OPTION_KEYS, "readFile options", provider);
  const { maxBytes, ...common } = op as ReadOptions;
  if (maxBytes !== undefined && (!Number.isInteger(maxBytes) || maxBytes < 0 || maxBytes > MAX_READ_BYTES)) {
    throw invalidRequest(
      `maxBytes must be an integer from 0 to ${MAX_READ_BYTES}, not ${String(maxBytes)}`,
      { field: "maxBytes" },
      provider,
    );
  }
  return { op: validateOpOptions(common, provider), maxBytes: maxBytes ?? DEFAULT_READ_MAX_BYTES };
}

/**
 * The `OUTPUT_LIMIT` of a file larger than a read's cap, naming both;
 * `details` carries `path`, `size` and `limit` (a caller may retry with a larger `maxBytes`).
 */
export function readLimitExceeded(provider: string, path: string, size: number, limit: number): SandportError {
  return new SandportError({
    code: "OUTPUT_LIMIT",
    provider,
    message: `${JSON.stringify(path)} is ${size} bytes, more than this read's maxBytes (${limit}); pass a larger maxBytes (at most ${MAX_READ_BYTES}) to read it`,
    details: { path, size, limit },
  });
}
