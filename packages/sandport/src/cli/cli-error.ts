import { EXIT, type ExitCode } from "./exit-codes.js";

/**
 * Why the command refused or failed before reaching a provider:
 *
 * - `USAGE`: a malformed flag value, a missing argument.
 * - `UNKNOWN_PROVIDER`: `--provider` names no installed adapter.
 * - `BAD_OPTION`: a provider option (from `--option` or the environment) is malformed or not declared.
 * - `UNREADABLE_FILE`: a file named on the command line cannot be read or parsed.
 * - `NOT_CONFIGURED`: a credential the provider needs is missing from the environment.
 * - `DESCRIPTOR_INVALID`: an adapter package's `"sandport"` descriptor is malformed (an adapter bug).
 * - `TESTKIT_MISSING`: `canary` needs `@sandport/testkit`, which is not installed.
 */
export type CliErrorCode =
  | "USAGE"
  | "UNKNOWN_PROVIDER"
  | "BAD_OPTION"
  | "UNREADABLE_FILE"
  | "NOT_CONFIGURED"
  | "DESCRIPTOR_INVALID"
  | "TESTKIT_MISSING";

const EXIT_BY_CODE: Readonly<Record<CliErrorCode, ExitCode>> = {
  USAGE: EXIT.USAGE,
  UNKNOWN_PROVIDER: EXIT.USAGE,
  BAD_OPTION: EXIT.USAGE,
  UNREADABLE_FILE: EXIT.USAGE,
  NOT_CONFIGURED: EXIT.NOT_CONFIGURED,
  DESCRIPTOR_INVALID: EXIT.PROVIDER,
  TESTKIT_MISSING: EXIT.PROVIDER,
};

/** An error of the command line itself, with a stable code, the exit code it maps to, and the underlying error as `cause`. */
export class CliError extends Error {
  /** Stable code; see {@link CliErrorCode}. */
  readonly code: CliErrorCode;
  /** The process exit code this error ends the command with. */
  readonly exitCode: ExitCode;

  constructor(code: CliErrorCode, message: string, options: { readonly cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CliError";
    this.code = code;
    this.exitCode = EXIT_BY_CODE[code];
  }
}
