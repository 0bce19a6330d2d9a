import { keyList } from "../validation/known-keys.js";
import type { OpOptions } from "./op-options.js";

/**
 * The most bytes `readFile` returns when the caller names no `maxBytes`: 64 MiB.
 * Reads are buffered whole in the caller's memory, so the default is sized for
 * the files an agent workload collects (sources, logs, reports), not for the
 * largest file a sandbox can make; a caller that expects more says so.
 */
export const DEFAULT_READ_MAX_BYTES = 64 * 1024 * 1024;

/** Per-call options of `readFile`: the common ones plus a cap on the file's size. */
export interface ReadOptions extends OpOptions {
  /**
   * The largest file this call returns, in bytes: an integer from 0 to
   * `MAX_READ_BYTES` (2 GiB - 1); default {@link DEFAULT_READ_MAX_BYTES}. A
   * larger file rejects with `OUTPUT_LIMIT`, whose details name its `size`
   * and the `limit`. The local runtime refuses before reading any byte;
   * remote adapters, whose vendors have no such cap, refuse after downloading.
   */
  readonly maxBytes?: number;
}

/** Every key a {@link ReadOptions} may have; any other is refused with `INVALID_REQUEST`. */
export const READ_OPTION_KEYS = keyList<ReadOptions>({ signal: true, timeoutMs: true, maxBytes: true });
