import type { ShellResult } from "@flue/runtime";
import type { ExecResult } from "@sandport/core";

/** The exit code Flue sees for a command killed at its time limit: `timeout(1)`'s convention. */
export const TIMED_OUT_EXIT_CODE = 124;
/** The exit code Flue sees for a command killed otherwise (output cap, abort): 128 + SIGKILL, as a shell reports it. */
export const KILLED_EXIT_CODE = 137;

/**
 * A Sandport result as Flue's `ShellResult`, whose `exitCode` must be a
 * number: a killed command (`exitCode: null`) becomes 124 when it ran past
 * its time limit, else 137.
 */
export function toShellResult(result: ExecResult): ShellResult {
  const exitCode = result.exitCode ?? (result.timedOut ? TIMED_OUT_EXIT_CODE : KILLED_EXIT_CODE);
  return { stdout: result.stdout, stderr: result.stderr, exitCode };
}
