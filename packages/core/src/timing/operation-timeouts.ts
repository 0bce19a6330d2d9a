/**
 * Per-call deadlines in milliseconds, by kind of call: one vocabulary for every
 * runtime and the orchestrator. A runtime uses them when a call's
 * `OpOptions.timeoutMs` is absent; the orchestrator passes them as
 * `OpOptions.timeoutMs`. A deadline bounds a call, not a sandbox's life and
 * not a command's run (that is `ExecRequest.timeoutMs`, else a runtime's
 * `runBudgetMs`).
 */
export interface OperationTimeouts {
  /** One `launch` (and, where the provider needs it, the wait until the sandbox answers). */
  readonly launchMs: number;
  /** One `getById` or `findByLabels` (all pages together), `commandStatus` or `commandLogs`. */
  readonly lookupMs: number;
  /** One file operation: `writeFiles`, `readFile`, `listDir`, `stat`, `mkdir`, `remove`. */
  readonly fileMs: number;
  /** One `destroy`, its verification included. */
  readonly destroyMs: number;
  /** One `stop` or `start`. */
  readonly lifecycleMs: number;
  /**
   * Added to a command's own run budget to give the deadline of the call that
   * runs it (`exec`, `execStream`), so the command's own timeout and kill
   * always come first and a result reports `timedOut` rather than the call
   * failing with `DEADLINE_EXCEEDED`.
   */
  readonly execGraceMs: number;
}

/** The kinds of {@link OperationTimeouts}, for validating a caller's partial object. */
export const OPERATION_TIMEOUT_NAMES: readonly (keyof OperationTimeouts)[] = Object.freeze([
  "launchMs",
  "lookupMs",
  "fileMs",
  "destroyMs",
  "lifecycleMs",
  "execGraceMs",
]);
