import type { IsolationMode } from "../capabilities/modes.js";

/**
 * A sandbox resource limit a runtime can say stopped a command: `memory`
 * (`ResourceLimits.memoryMiB`: the kernel killed a process of the command at
 * the limit), `processes` (`ResourceLimits.maxProcesses`: the command tried
 * to start a process past the limit and was refused), `disk` (a write failed
 * at the sandbox's disk bound). There is no `cpu`: a CPU limit slows a
 * command down and never stops it.
 */
export type ResourceLimitKind = "memory" | "processes" | "disk";

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
  /**
   * The sandbox resource limit this command was stopped at, on the runtime's
   * own evidence: set only when the runtime (or its provider) recorded the
   * limit being enforced on the sandbox while this command ran (an OOM kill,
   * a refused fork, a write refused at the disk bound) and the command did
   * not end successfully (a non-zero exit, a signal, or a stop by the
   * runtime). Never inferred from an exit code such as 137 alone.
   *
   * Absent when no limit was hit, or the runtime cannot tell: most hosted
   * providers report nothing of the kind (each runtime's documentation says
   * whether it sets this). It says why the command failed, not who ended it:
   * `timedOut`, `truncated` and `exitCode` keep their meaning, so a fork bomb
   * held at `maxProcesses` until its run budget ran out is `timedOut: true`
   * and `limit: "processes"`.
   */
  readonly limit?: ResourceLimitKind;
  /** The isolation the command actually ran under, where the runtime reports it. */
  readonly isolation?: IsolationMode;
}
