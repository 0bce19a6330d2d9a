import { SandportError, WorkloadError } from "@sandport/core";
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";
import type { Terminal } from "./output/terminal.js";
import { type RunResultJson, runResultJson } from "./run/result-json.js";

/** One link of an error's cause chain, as reported. */
export interface ReportedCause {
  readonly message: string;
  readonly code?: string;
}

/**
 * An error that ended a command, as it is reported: on stderr for people and,
 * with `--json`, as `{ "error": ErrorReport }` on stdout.
 */
export interface ErrorReport {
  /**
   * Stable code: a {@link CliError}'s (`USAGE`, `NOT_CONFIGURED`…), a
   * `SandportError`'s (`AUTH`, `SDK_UNAVAILABLE`…), `INTERRUPTED`, or `UNEXPECTED`.
   */
  readonly code: string;
  readonly message: string;
  /** The exit code the command ends with. */
  exitCode: number;
  /** The provider that failed (a `SandportError`'s). */
  readonly provider?: string;
  /** Whether the same call may succeed if tried again (a `SandportError`'s). */
  readonly retryable?: boolean;
  /** The cause chain, at most five deep, each with its code when it has one. */
  readonly causes?: readonly ReportedCause[];
  /** The command's usage line, for an error of the command line (exit 2). */
  usage?: string;
  /** `run`: what the workload did before it failed. */
  readonly result?: RunResultJson;
}

/**
 * What `error` means for the command: its code, message and exit code. A
 * {@link CliError} has its own exit code; a `SandportError` is 2 for a refused
 * request (`INVALID_REQUEST`, a bad option value) and 4 otherwise; an abort by
 * Ctrl-C 130; anything else 1.
 */
export function describeError(error: unknown, interrupted: boolean): ErrorReport {
  if (interrupted) return { code: "INTERRUPTED", message: "interrupted", exitCode: EXIT.INTERRUPTED };
  if (error instanceof CliError) {
    return { code: error.code, message: error.message, exitCode: error.exitCode, ...causesOf(error) };
  }
  if (SandportError.isInstance(error)) {
    return {
      code: error.code,
      message: error.message,
      exitCode: error.code === "INVALID_REQUEST" ? EXIT.USAGE : EXIT.PROVIDER,
      provider: error.provider,
      retryable: error.retryable,
      ...causesOf(error),
      ...(error instanceof WorkloadError ? { result: runResultJson(error.result) } : {}),
    };
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: "UNEXPECTED", message, exitCode: EXIT.FAILED };
}

/**
 * Prints `report`: a line on stderr (a provider skipped for want of credentials
 * is one plain line, not an error), its causes, and for an error of the command
 * line the usage; with `json`, also `{ "error": report }` on stdout.
 */
export function printError(report: ErrorReport, terminal: Terminal, json: boolean): void {
  if (report.code === "NOT_CONFIGURED") terminal.note(report.message);
  else if (report.code === "INTERRUPTED" || report.code === "UNEXPECTED") terminal.error(headline(report));
  else terminal.error(`${headline(report)} [${report.code}]`);
  for (const cause of report.causes ?? [])
    terminal.note(`  cause: ${cause.message}${cause.code ? ` [${cause.code}]` : ""}`);
  if (report.usage !== undefined) {
    terminal.note(`Usage: ${report.usage}`);
    terminal.note(`(${report.usage.split(" [")[0]} --help lists the flags)`);
  }
  if (json) terminal.json({ error: report });
}

function headline(report: ErrorReport): string {
  if (report.code === "UNEXPECTED") return `unexpected: ${report.message}`;
  return report.provider === undefined ? report.message : `${report.provider}: ${report.message}`;
}

/** The cause chain, at most five deep; a cause whose message its parent already quotes is passed over. */
function causesOf(error: Error): { causes?: ReportedCause[] } {
  const causes: ReportedCause[] = [];
  let shown = error.message;
  let current = error.cause;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    const message = current instanceof Error ? current.message : String(current);
    if (!shown.includes(message)) causes.push({ message, ...(typeof code === "string" ? { code } : {}) });
    shown = message;
    current = current instanceof Error ? current.cause : undefined;
  }
  return causes.length > 0 ? { causes } : {};
}
