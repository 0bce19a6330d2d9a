import type { ExecResult } from "../port/exec-result.js";

/** What a shell reports for a command that `timeout(1)` stopped: coreutils' convention. */
export const TIMED_OUT_EXIT_STATUS = 124;
/** What a shell reports for a command killed by SIGKILL: 128 + 9. */
export const KILLED_EXIT_STATUS = 137;

/**
 * The exit status to give a framework whose type wants a number where
 * `ExecResult.exitCode` is `null` (the command was killed before it exited):
 * the exit code when there is one, {@link TIMED_OUT_EXIT_STATUS} (124) when the
 * command ran past its timeout, else {@link KILLED_EXIT_STATUS} (137), as a shell
 * would report for a killed child (a kill, an abort, the output cap). Framework
 * bridges use it so that every one maps a kill the same way; the result's
 * `timedOut` and `truncated` still say why.
 */
export function exitStatus(result: Pick<ExecResult, "exitCode" | "timedOut">): number {
  if (result.exitCode !== null) return result.exitCode;
  return result.timedOut ? TIMED_OUT_EXIT_STATUS : KILLED_EXIT_STATUS;
}
