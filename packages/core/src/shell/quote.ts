import { invalidRequest } from "../errors/factories.js";

/** What a command runs, in either form of a request (an `ExecRequest` or a validated one). */
export interface CommandForm {
  readonly argv?: readonly string[];
  readonly shell?: string;
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Quotes one argument for a POSIX shell. Safe words pass through unchanged;
 * anything else is wrapped in single quotes, with each `'` written as `'\''`.
 * The result always reaches the program as exactly `value`. NUL cannot be
 * passed through a shell and is refused with `INVALID_REQUEST`.
 */
export function quoteShellArg(value: string): string {
  if (value.includes("\u0000")) throw invalidRequest("a shell argument cannot contain a NUL byte");
  if (SAFE_WORD.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Quotes an argument vector into one shell command line. */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map(quoteShellArg).join(" ");
}

/** The shell script a request stands for: `argv` quoted, or `shell` as given. */
export function toShellScript(request: CommandForm): string {
  return request.argv ? quoteArgv(request.argv) : (request.shell as string);
}

/** Parts of a command for a provider whose exec takes only a string. */
export interface ShellCommandParts {
  /** The request to run. */
  readonly request: CommandForm;
  /** Absolute directory to run in, if any. */
  readonly cwd?: string;
  /** Variables to export first. Names must already be validated. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The workspace root, as `cwd` would name it: when `cwd` is it, the command
   * makes it first if it is missing ({@link makeWorkspaceScript}), since a
   * launch leaves the workspace to its first use.
   */
  readonly workspace?: string;
}

/** Exit status of a composed command whose `cd` failed: its directory is missing, and nothing ran. */
export const MISSING_CWD_EXIT = 66;
/** The line a composed command prints on stderr when its `cd` failed (see {@link isMissingCwdExit}). */
export const MISSING_CWD_LINE = "sandport: the working directory does not exist";

/**
 * True when a composed command ({@link composeShellCommand} with `cwd`) ran
 * nothing because its working directory is missing: exit
 * {@link MISSING_CWD_EXIT} with {@link MISSING_CWD_LINE} as its whole stderr.
 * The adapter reports it as `missingCwd`.
 */
export function isMissingCwdExit(exitCode: number | null, stderr: string): boolean {
  return exitCode === MISSING_CWD_EXIT && stderr.trim() === MISSING_CWD_LINE;
}

/**
 * One command string that changes directory, exports the environment and runs
 * the request, every caller value quoted: for providers with no cwd or env
 * field. A shell request runs in its own `sh -c`, so its syntax cannot reach
 * the prelude. A `cd` that fails prints {@link MISSING_CWD_LINE} and exits
 * {@link MISSING_CWD_EXIT}, running nothing. A `cwd` that is `workspace` is
 * made first when missing.
 */
export function composeShellCommand(parts: ShellCommandParts): string {
  const prelude: string[] = [];
  if (parts.cwd !== undefined) prelude.push(enterCwdScript(parts.cwd, parts.workspace));
  const assignments = Object.entries(parts.env ?? {}).map(([name, value]) => `${name}=${quoteShellArg(value)}`);
  if (assignments.length > 0) prelude.push(`export ${assignments.join(" ")}`);
  const body = parts.request.argv
    ? `exec ${quoteArgv(parts.request.argv)}`
    : `exec sh -c ${quoteShellArg(parts.request.shell as string)}`;
  return [...prelude, body].join(" && ");
}

/**
 * Shell text that changes to `cwd` (making it first when it is `workspace`
 * and missing, {@link makeWorkspaceScript}), or prints {@link MISSING_CWD_LINE}
 * and exits {@link MISSING_CWD_EXIT}: the prelude of {@link composeShellCommand},
 * for an adapter that sends the command's own working directory elsewhere.
 * Chain the command after it with `&&`.
 */
export function enterCwdScript(cwd: string, workspace?: string): string {
  const make = cwd === workspace ? `${makeWorkspaceScript(cwd)}; ` : "";
  return `{ ${make}cd -- ${quoteShellArg(cwd)} 2>/dev/null || { echo '${MISSING_CWD_LINE}' >&2; exit ${MISSING_CWD_EXIT}; }; }`;
}

/**
 * Shell text that makes the workspace root (with its parents) when it is not
 * a directory yet, and succeeds at once when it is. A remote launch sends no
 * request to make the workspace: the first command or file call that needs it
 * makes it within its own request, with this. Silent: a `cd` after it reports
 * a directory that could not be made.
 */
export function makeWorkspaceScript(workspace: string): string {
  const quoted = quoteShellArg(workspace);
  return `{ [ -d ${quoted} ] || mkdir -p -- ${quoted} 2>/dev/null; }`;
}

/**
 * Shell text that enters the workspace root, making it first when missing
 * ({@link makeWorkspaceScript}): the prefix of an adapter's own scripts (the
 * symlink guard, `chmod`) that run in the workspace. Chain what follows with
 * `&&`: it fails when the directory can be neither found nor made.
 */
export function enterWorkspaceScript(workspace: string): string {
  return `${makeWorkspaceScript(workspace)}; cd -- ${quoteShellArg(workspace)}`;
}
