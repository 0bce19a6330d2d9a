import { SandportError } from "@sandport/core";
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";
import type { Terminal } from "./output/terminal.js";

/**
 * Prints an error that ended a command, with its code and every cause, and
 * returns the exit code it maps to: a {@link CliError} its own, a `SandportError` 2 for a refused
 * request (`INVALID_REQUEST`, a bad option value) and 4 otherwise, an abort by
 * Ctrl-C 130, anything else 1.
 */
export function reportError(error: unknown, terminal: Terminal, interrupted: boolean): number {
  if (interrupted) {
    terminal.error("interrupted");
    return EXIT.INTERRUPTED;
  }
  if (error instanceof CliError && error.code === "NOT_CONFIGURED") {
    // Not an error: a provider without credentials here is skipped, in one line a CI log can show as is.
    terminal.note(error.message);
    return error.exitCode;
  }
  if (error instanceof CliError) {
    terminal.error(`${error.message} [${error.code}]`);
    printCauses(error, terminal);
    return error.exitCode;
  }
  if (SandportError.isInstance(error)) {
    terminal.error(`${error.provider}: ${error.message} [${error.code}]`);
    printCauses(error, terminal);
    return error.code === "INVALID_REQUEST" ? EXIT.USAGE : EXIT.PROVIDER;
  }
  terminal.error(`unexpected: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return EXIT.FAILED;
}

/** One line per cause in the chain, at most five deep; a cause whose message its parent already quotes is passed over. */
function printCauses(error: Error, terminal: Terminal): void {
  let shown = error.message;
  let current = error.cause;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    const message = current instanceof Error ? current.message : String(current);
    if (!shown.includes(message)) terminal.note(`  cause: ${message}${typeof code === "string" ? ` [${code}]` : ""}`);
    shown = message;
    current = current instanceof Error ? current.cause : undefined;
  }
}
