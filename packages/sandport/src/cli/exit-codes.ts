/**
 * The exit codes of the `sandport` command. Scripts may rely on them; the
 * README's table is checked against {@link EXIT_CODE_TABLE}.
 */
export const EXIT = {
  /** Everything asked for was done and every check passed. */
  OK: 0,
  /** The command ran but something it checked failed: a conformance check or probe, a destroy left unverified, a doctor check. */
  FAILED: 1,
  /** The command line was wrong: an unknown flag or provider, a malformed value, an unreadable file. Nothing was done. */
  USAGE: 2,
  /** The provider is not configured here: a credential it needs is missing from the environment. Nothing was done. */
  NOT_CONFIGURED: 3,
  /** The provider, its adapter or its SDK failed (authentication, an unreachable service, a missing SDK or test kit). */
  PROVIDER: 4,
  /** `run` only: the command ran past `--timeout` and was killed. */
  RUN_TIMEOUT: 124,
  /** `run` only: Sandport itself failed (1, 3 or 4), so there is no exit code of the command to return. A usage error stays 2. */
  RUN_FAILED: 125,
  /** Interrupted (Ctrl-C); whatever was launched was torn down first. */
  INTERRUPTED: 130,
} as const;

/** One of the exit codes above. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit-code table as documented: `[code, meaning]`, in order. */
export const EXIT_CODE_TABLE: readonly (readonly [number, string])[] = [
  [EXIT.OK, "done; every check passed (`run`: the command exited 0)"],
  [EXIT.FAILED, "a check failed: a conformance check or probe, an unverified destroy, a doctor check"],
  [EXIT.USAGE, "bad command line: unknown flag or provider, malformed value, unreadable file; nothing was done"],
  [EXIT.NOT_CONFIGURED, "the provider's credentials are missing from the environment (names printed); skipped"],
  [EXIT.PROVIDER, "the provider, adapter or SDK failed (authentication, unreachable service, missing SDK or test kit)"],
  [EXIT.RUN_TIMEOUT, "`run`: the command passed `--timeout` and was killed"],
  [EXIT.RUN_FAILED, "`run`: Sandport failed before or after the command (3 and 4 become 125)"],
  [EXIT.INTERRUPTED, "interrupted; what was launched was torn down"],
];

/**
 * The exit code of `run` for one its own failure would end another command
 * with: a usage error (nothing was launched) and an interrupt keep theirs;
 * any other failure of Sandport's becomes 125, a code the command itself
 * would hardly return.
 */
export function runExitCode(code: number): number {
  return code === EXIT.OK || code === EXIT.USAGE || code === EXIT.INTERRUPTED ? code : EXIT.RUN_FAILED;
}
