import type { IsolationMode } from "../capabilities/modes.js";

/**
 * The outcome of a finished command. A non-zero exit is a result, not an error.
 */
export interface ExecResult {
  /**
   * Exit status, or `null` when the runtime stopped the command before it
   * exited: its run budget (`timeoutMs`), its output cap, `kill()`, or an abort
   * after `spawn`. A command that ended by itself reports its status, as the
   * provider gives it (one killed by a signal the runtime did not send may
   * report `null` or `128 + signal`); `timedOut` and `truncated` say why a
   * command was stopped, never this field.
   */
  readonly exitCode: number | null;
  /** Standard output decoded as UTF-8. */
  readonly stdout: string;
  /**
   * Standard error decoded as UTF-8. Empty where the provider merges the
   * streams; the runtime's `outputStreams` mode is then `combined`.
   */
  readonly stderr: string;
  /**
   * True when output passed `maxOutputBytes`: the rest was dropped and the
   * command stopped (`exitCode: null`, `timedOut: false`). Never more than the
   * cap is kept.
   */
  readonly truncated: boolean;
  /**
   * True exactly when the runtime killed the command because it ran past
   * `timeoutMs` (`exitCode` is then `null`). False for every other ending: the
   * output cap, `kill()`, an abort, or a signal the runtime did not send, even
   * when no exit status came back.
   */
  readonly timedOut: boolean;
  /**
   * Wall-clock milliseconds from start to exit, as measured by the adapter;
   * for a command that timed out, at least its `timeoutMs`.
   */
  readonly durationMs: number;
  /** The isolation the command actually ran under, where the runtime reports it. */
  readonly isolation?: IsolationMode;
}
