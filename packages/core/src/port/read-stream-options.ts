import { keyList } from "../validation/known-keys.js";
import type { OpOptions } from "./op-options.js";

/**
 * Per-call options of `readFileStream`: the common ones plus an optional cap
 * on the file's size.
 *
 * `timeoutMs` bounds the whole stream, from the call until its last chunk
 * (else the runtime's file deadline): a consumer that reads slowly passes a
 * larger one. Aborting `signal` at any moment, between chunks too, ends the
 * stream and closes the file.
 */
export interface ReadStreamOptions extends OpOptions {
  /**
   * The largest file this stream returns, in bytes: a safe integer from 0 up.
   * A larger file rejects with `OUTPUT_LIMIT` (details: `path`, `size`,
   * `limit`) before the first chunk. No default: a stream holds one chunk at a
   * time whatever the file's size, so nothing in the caller grows with it; a
   * caller that passes the bytes on somewhere bounded (a disk, an upload) says
   * how much it accepts here.
   */
  readonly maxBytes?: number;
}

/** Every key a {@link ReadStreamOptions} may have; any other is refused with `INVALID_REQUEST`. */
export const READ_STREAM_OPTION_KEYS = keyList<ReadStreamOptions>({ signal: true, timeoutMs: true, maxBytes: true });
