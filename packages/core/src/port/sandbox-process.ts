import type { ExecEvent } from "./exec-event.js";
import type { ExecResult } from "./exec-result.js";

/**
 * A command started with `spawn`, still running: its output as it arrives,
 * its stdin open for writing, and its end.
 *
 * Output is kept for the consumer of {@link events} (it may start iterating
 * late) and for {@link result}, bounded by the command's output cap
 * (`maxOutputBytes`): past the cap the command is killed and the result says
 * `truncated`, so a slow reader never makes the runtime buffer without bound.
 */
export interface SandboxProcess {
  /**
   * The command's events in order: `started`, `stdout` / `stderr` chunks (with
   * `bytes`), then `exited` carrying the result. One consumer; iterating again
   * is refused. Leaving the loop early does not kill the command: call
   * {@link kill}.
   */
  readonly events: AsyncIterable<ExecEvent>;
  /**
   * Resolves with the result once the command has ended (a non-zero exit, a
   * timeout, a kill or a truncation are results, as with `exec`). Rejects only
   * when the runtime lost the command (its outcome then is unknown).
   */
  readonly result: Promise<ExecResult>;
  /**
   * Writes to the command's stdin, resolving once the runtime has handed the
   * bytes on. Rejects `INVALID_REQUEST` after {@link closeStdin}, and
   * `NOT_FOUND` once the command has exited (its stdin is gone): never hangs.
   */
  write(data: string | Uint8Array): Promise<void>;
  /** Closes stdin, so the command reads end of file. Idempotent, also after the command has exited. */
  closeStdin(): Promise<void>;
  /**
   * Kills the command and everything it started. Idempotent; resolves once the
   * kill has been sent. The result then reports `exitCode: null`,
   * `timedOut: false` (a kill is not a timeout) and `truncated: false` unless
   * the output cap was passed before.
   */
  kill(): Promise<void>;
}
