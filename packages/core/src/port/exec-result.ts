import type { IsolationMode } from "../capabilities/modes.js";

/**
 * The outcome of a finished command. A non-zero exit is a result, not an error.
 */
export interface ExecResult {
  /** Exit status, or `null` when the command was killed (timeout, abort, output cap) before it exited. */
  readonly exitCode: number | null;
  /** Standard output decoded as UTF-8. */
  readonly stdout: string;
  /**
   * Standard error decoded as UTF-8. Empty where the provider merges the
   * streams; the runtime's `outputStreams` mode is then `combined`.
   */
  readonly stderr: string;
  /** True when output passed `maxOutputBytes` and the rest was dropped. */
  readonly truncated: boolean;
  /** True when the command was killed because it ran past `timeoutMs`. */
  readonly timedOut: boolean;
  /** Wall-clock milliseconds from start to exit, as measured by the adapter. */
  readonly durationMs: number;
  /** The isolation the command actually ran under, where the runtime reports it. */
  readonly isolation?: IsolationMode;
}
