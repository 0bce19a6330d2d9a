import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { OpOptions } from "../port/op-options.js";
import { READ_STREAM_OPTION_KEYS, type ReadStreamOptions } from "../port/read-stream-options.js";
import { refuseUnknownShape } from "./known-keys.js";
import { validateOpOptions } from "./requests.js";

/** A `readFileStream` call's options after validation: the common options apart, the cap if any. */
export interface ValidatedReadStreamOptions {
  /** The common per-call options (`signal`, `timeoutMs`), `maxBytes` removed. */
  readonly op: OpOptions | undefined;
  /** The largest file the stream returns; `undefined`: no cap. */
  readonly maxBytes: number | undefined;
}

/**
 * Validates `readFileStream` options: no key beyond
 * {@link READ_STREAM_OPTION_KEYS}, the common ones as `validateOpOptions`
 * does, and `maxBytes`, when given, a safe integer from 0 up
 * (`INVALID_REQUEST` otherwise, before any provider call).
 */
export function validateReadStreamOptions(op: unknown, provider?: string): ValidatedReadStreamOptions {
  if (op === undefined) return { op: undefined, maxBytes: undefined };
  refuseUnknownShape(op, READ_STREAM_OPTION_KEYS, "readFileStream options", provider);
  const { maxBytes, ...common } = op as ReadStreamOptions;
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 0)) {
    throw invalidRequest(
      `maxBytes must be a safe integer from 0 up, not ${String(maxBytes)}`,
      { field: "maxBytes" },
      provider,
    );
  }
  return { op: validateOpOptions(common, provider), maxBytes };
}

/**
 * The `OUTPUT_LIMIT` of a file larger than a stream's cap, naming both;
 * `details` carries `path`, `size` and `limit`, as `readFile`'s does.
 */
export function streamLimitExceeded(provider: string, path: string, size: number, limit: number): SandportError {
  return new SandportError({
    code: "OUTPUT_LIMIT",
    provider,
    message: `${JSON.stringify(path)} is ${size} bytes, more than this stream's maxBytes (${limit}); pass a larger maxBytes, or none, to stream it`,
    details: { path, size, limit },
  });
}
