import { keyList } from "../validation/known-keys.js";

/**
 * Per-call options accepted by every runtime method.
 *
 * Every provider call has a deadline: `timeoutMs` when given, else the runtime's
 * default for that operation. None waits forever.
 */
export interface OpOptions {
  /** Aborting rejects the call promptly with `ABORTED`, carrying the abort reason as `cause`. */
  readonly signal?: AbortSignal;
  /** Deadline for this call in milliseconds. Exceeding it rejects with `DEADLINE_EXCEEDED`. */
  readonly timeoutMs?: number;
}

/** Every key an {@link OpOptions} may have; any other is refused with `INVALID_REQUEST`. */
export const OP_OPTION_KEYS = keyList<OpOptions>({ signal: true, timeoutMs: true });
