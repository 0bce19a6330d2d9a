import { posix } from "node:path";
import { composeShellCommand, EXEC_MARKER_ENV, quoteShellArg, type ValidatedExecRequest } from "@sandport/core";
import { markerSweepScript } from "@sandport/core/adapter";

/** Exit code of a session command that its own watchdog stopped at its timeout (the timeout mark tells it apart). */
export const WATCHDOG_EXIT = 124;
/** Exit code of an async start whose session id was claimed before (a repeat after the sandbox restarted). */
export const CLAIMED_EXIT = 75;

/**
 * A script as the one command string the daemon runs, the same way whether
 * it hands the string to its shell (current daemons) or splits it into
 * arguments itself (older ones): `sh -c 'eval "$(echo <base64> | base64 -d)"'`.
 * Nothing the caller wrote is spliced into the string unencoded.
 */
export function daemonCommand(script: string): string {
  return `sh -c 'eval "$(echo ${Buffer.from(script).toString("base64")} | base64 -d)"'`;
}

/**
 * A request as the last step of the subshell that runs it: `exec` of `argv`
 * (quoted) or of a `shell` script's own `sh -c` (the kit's
 * `composeShellCommand`), its stderr merged into its stdout. The command
 * replaces that subshell, so no wrapper shell with the output as its stderr
 * waits for it: a shell that sees its child die of a signal prints a notice
 * (`Killed`) to its own stderr, which would land in the command's output.
 * The wrappers ({@link cappedScript}, {@link sessionScript}) run it in
 * `( … )` with their own stderr elsewhere.
 */
export function requestCommand(request: ValidatedExecRequest): string {
  return `${composeShellCommand({ request })} 2>&1`;
}

/**
 * What `exec` runs with `executeCommand`: `command` (stdin arranged, its
 * stderr merged by {@link requestCommand}) in a subshell, its output cut
 * after `capBytes + 1` bytes by `head`, so an endless writer stops and the
 * result shows it went past the cap; the command's own exit status is kept.
 * The shell that waits for it writes its own stderr to `/dev/null`, so the
 * output is only the command's. The command gets neither of the descriptors
 * the wrapper uses, so a background child it leaves cannot hold the result
 * open.
 */
export function cappedScript(command: string, capBytes: number): string {
  return [
    "exec 4>&1",
    `s=$( { { ( ${command} ) 3>&- 4>&-; echo $? >&3; } 2>/dev/null | head -c ${capBytes + 1} 3>&- >&4; } 3>&1 )`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    'exit "${s:-255}"',
  ].join("\n");
}

/** The parts of a session command (streamed, interactive or async). */
export interface SessionScriptParts {
  /** The sandbox user's home (`$HOME` inside the sandbox): the one anchor a session command has. */
  readonly home: string;
  /** Absolute working directory. */
  readonly cwd: string;
  /** The workspace root: a `cwd` that is it is made first when missing (a launch does not make it). */
  readonly workspace?: string;
  /** Environment of the command, the exec marker included. */
  readonly env: Readonly<Record<string, string>>;
  /** The exec marker of the command and its descendants, for the watchdog's sweep. */
  readonly marker: string;
  /** The command, stdin arranged (paths relative to `cwd`); for an interactive one, without stdin. */
  readonly command: string;
  /** When the sandbox itself stops the command, in ms. */
  readonly watchdogMs: number;
  /** Absolute path of the mark the watchdog leaves when it stopped the command. */
  readonly timeoutMark: string;
  /**
   * Absolute path of the run record the command writes as it starts (an async command's): the
   * watchdog's clock starts once it exists, so the budget the record measures is never cut short.
   */
  readonly startRecord?: string;
  /** Absolute path of the directory that claims an async session id, so no second copy runs. */
  readonly claim?: string;
  /** Absolute path of the command's staged stdin, removed by a start that finds its session id claimed. */
  readonly staged?: string;
  /** Feed stdin from the session's input, line-framed base64 (`.` alone ends it). */
  readonly interactive?: boolean;
}

/**
 * A session command's script. Daytona runs a session command inside the
 * session's own shell, which has no working directory, environment or
 * timeout per command, so the script brings them: it changes to `cwd`
 * (through `$HOME` under home, absolute elsewhere), merges stderr into stdout (one stream, in the order it
 * was written), runs the command as a child with its environment, and a
 * watchdog kills the command and everything carrying its marker at
 * `watchdogMs`, leaving `timeoutMark` and exiting {@link WATCHDOG_EXIT}.
 * Once the command runs, the script's own stderr is `/dev/null`: its shell
 * would report the command's death by a signal there.
 */
export function sessionScript(parts: SessionScriptParts): string {
  const relative = (path: string) => quoteShellArg(posix.relative(parts.cwd, path) || ".");
  const fromHome = posix.relative(parts.home, parts.cwd);
  const exports = Object.entries(parts.env).map(([name, value]) => `${name}=${quoteShellArg(value)}`);
  const mark = relative(parts.timeoutMark);
  // Under home, through `$HOME` (the one anchor a session has); anywhere else (`/tmp`), the absolute path itself.
  const outside = fromHome === ".." || fromHome.startsWith("../");
  const directory = outside
    ? quoteShellArg(parts.cwd)
    : `"$HOME"${fromHome === "" ? "" : `/${quoteShellArg(fromHome)}`}`;
  const make = parts.cwd === parts.workspace ? `{ [ -d ${directory} ] || mkdir -p -- ${directory}; }; ` : "";
  const lines = ["exec 2>&1", `${make}cd -- ${directory} || exit 1`];
  if (parts.claim !== undefined) {
    const claim = relative(parts.claim);
    const discard = parts.staged === undefined ? "" : `rm -f -- ${relative(parts.staged)}; `;
    lines.push(
      `mkdir -p -- ${relative(posix.dirname(parts.claim))} && mkdir -- ${claim} 2>/dev/null || { ${discard}echo "sandport: this session id was started before"; exit ${CLAIMED_EXIT}; }`,
    );
  }
  if (parts.interactive) lines.push("exec 3<&0");
  const body = parts.interactive ? relayed(parts.command) : parts.command;
  const startWait =
    parts.startRecord === undefined
      ? ""
      : `while [ ! -s ${relative(parts.startRecord)} ] && kill -0 "$c" 2>/dev/null; do sleep 0.01; done; `;
  lines.push(
    "exec 2>/dev/null",
    `( ${exports.length === 0 ? ":" : `export ${exports.join(" ")}`} && ${body}
) &`,
    "c=$!",
    `( ${startWait}sleep ${(parts.watchdogMs / 1000).toFixed(3)}; kill -0 "$c" 2>/dev/null || exit 0; mkdir -p -- ${relative(posix.dirname(parts.timeoutMark))}; : > ${mark}; ${markerSweepScript(EXEC_MARKER_ENV, parts.marker)} ) >/dev/null 2>&1 </dev/null &`,
    "w=$!",
    'wait "$c"; s=$?',
    'kill "$w" 2>/dev/null',
    `[ -e ${mark} ] && exit ${WATCHDOG_EXIT}`,
    'exit "$s"',
  );
  return lines.join("\n");
}

/**
 * `command` (an `exec`, in a subshell of its own) with its stdin from a FIFO
 * that a relay fills from the session's input (descriptor 3): each input line
 * is base64, a line of `.` closes the command's stdin. Daytona's input has no
 * end of file of its own.
 */
function relayed(command: string): string {
  return [
    `{ f=$(mktemp -u "\${TMPDIR:-/tmp}/sandport-stdin.XXXXXXXX") && mkfifo -m 600 "$f" || exit 125; }`,
    `( while IFS= read -r l; do [ "$l" = . ] && break; printf '%s' "$l" | base64 -d; done ) <&3 >"$f" &`,
    "r=$!",
    `( ${command} ) <"$f" 3<&-`,
    "s=$?",
    'kill "$r" 2>/dev/null; rm -f -- "$f"; exit "$s"',
  ].join("\n");
}
