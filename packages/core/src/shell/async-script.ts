import { posix } from "node:path";
import { asyncOutputCapScript } from "./async-output-cap.js";
import { quoteShellArg } from "./quote.js";

/** Where one async command session keeps its records inside the sandbox (absolute paths). */
export interface SessionFiles {
  /** The session's directory; it exists once the session was started. */
  readonly directory: string;
  /** `<command id>\n<start time, epoch ms>\n<output cap, bytes>\n`, written right after the directory is claimed. */
  readonly record: string;
  /**
   * `<exit code>\n<duration ms>\n<1 when the watchdog killed it>\n<1 when its output cap stopped it>\n`,
   * written when the command ends.
   */
  readonly exit: string;
  /** The mark the output cap leaves when it stopped the command (`asyncOutputCapScript`). */
  readonly capped: string;
  readonly stdout: string;
  readonly stderr: string;
}

/** The first line the script prints when this start claimed the session; followed by the command id. */
export const STARTED_LINE = "sandport-session started";
/** The first line when the session already existed; followed by the existing command's id. */
export const EXISTS_LINE = "sandport-session exists";
/** Exit code of a start that found its session already present (no second copy ran). */
export const SESSION_EXISTS_EXIT = 75;

/** The record paths of a session under `stateDirectory` (the session id is already validated). */
export function sessionFiles(stateDirectory: string, sessionId: string): SessionFiles {
  const directory = `${stateDirectory}/${sessionId}`;
  return {
    directory,
    record: `${directory}/record`,
    exit: `${directory}/exit`,
    capped: `${directory}/capped`,
    stdout: `${directory}/stdout`,
    stderr: `${directory}/stderr`,
  };
}

/** What the async script runs. */
export interface AsyncScriptInput {
  /** The command string (already quoted, stdin arranged). */
  readonly command: string;
  /** Its absolute working directory; record paths are made relative to it. */
  readonly cwd: string;
  /** Its run budget in ms; the watchdog kills the whole group then. */
  readonly timeoutMs: number;
  /** Its output cap (stdout and stderr together): past it the command is stopped and the output cut. */
  readonly maxOutputBytes: number;
  /** Where the records go. */
  readonly files: SessionFiles;
  /** The id this start reports when it claims the session. */
  readonly commandId: string;
}

/**
 * The bash script an async command runs as, for providers with no async
 * command API of their own. It claims the session by creating its directory
 * (`mkdir` is atomic), so only one start ever runs the command; a start that
 * finds the directory prints {@link EXISTS_LINE} and the existing command's
 * id, and exits {@link SESSION_EXISTS_EXIT}. The winner prints
 * {@link STARTED_LINE} and its own id, detaches its output, runs the command
 * in its own process group with stdout/stderr to files, each cut one byte past
 * the output cap, which stops the command (`asyncOutputCapScript`), and a
 * watchdog kills the whole group at the timeout (marking it timed out): SIGTERM,
 * SIGKILL 2 s later, and SIGKILL at once when the group's leader has ended
 * while a member that ignores SIGTERM runs on.
 * Finally it writes the exit record atomically (write, then rename).
 */
export function asyncScript(input: AsyncScriptInput): string {
  const seconds = (input.timeoutMs / 1000).toFixed(3);
  const directory = posix.relative(input.cwd, input.files.directory) || ".";
  const parent = posix.dirname(directory);
  const capped = asyncOutputCapScript({
    command: input.command,
    maxOutputBytes: input.maxOutputBytes,
    merged: false,
    capMark: `${directory}/capped`,
  });
  return [
    `d=${quoteShellArg(directory)}`,
    `now_ms() { local t="\${EPOCHREALTIME:-}"; if [ -n "$t" ]; then t="\${t/[.,]/}"; echo "$(( 10#$t / 1000 ))"; else echo "$(( $(date +%s) * 1000 ))"; fi; }`,
    `mkdir -p -- ${quoteShellArg(parent)} || exit 1`,
    `if ! mkdir -- "$d" 2>/dev/null; then`,
    `  for i in $(seq 100); do [ -s "$d/record" ] && break; sleep 0.05; done`,
    `  echo "${EXISTS_LINE} $(head -n 1 "$d/record" 2>/dev/null)"; exit ${SESSION_EXISTS_EXIT}`,
    "fi",
    "start=$(now_ms)",
    `printf '%s\\n%s\\n%s\\n' ${quoteShellArg(input.commandId)} "$start" ${input.maxOutputBytes} >"$d/record.tmp" && mv -f -- "$d/record.tmp" "$d/record"`,
    `echo "${STARTED_LINE} ${input.commandId}"`,
    "exec >/dev/null 2>&1",
    // Job control gives the command its own process group, so the watchdog stops all of it.
    "set -m",
    `( ${capped} ) >"$d/stdout" 2>"$d/stderr" </dev/null &`,
    "child=$!",
    `( sleep ${seconds}; : >"$d/timed-out"; kill -TERM -- "-$child"; sleep 2; kill -KILL -- "-$child" ) &`,
    "watchdog=$!",
    `wait "$child"; code=$?`,
    // A timed-out command's group outlives its leader when a member ignores SIGTERM: killed before the watchdog goes.
    `[ -e "$d/timed-out" ] && kill -KILL -- "-$child" 2>/dev/null`,
    `kill -- "-$watchdog" 2>/dev/null`,
    `timed=0; [ -e "$d/timed-out" ] && timed=1`,
    `capped=0; [ -e "$d/capped" ] && capped=1`,
    `printf '%s\\n%s\\n%s\\n%s\\n' "$code" "$(( $(now_ms) - start ))" "$timed" "$capped" >"$d/exit.tmp" && mv -f -- "$d/exit.tmp" "$d/exit"`,
    `exit "$code"`,
  ].join("\n");
}

/** An exit record, as {@link parseExitRecord} reads it. */
export interface ExitRecord {
  readonly exitCode: number;
  readonly durationMs: number;
  /** The watchdog killed it at its timeout. */
  readonly timedOut: boolean;
  /** Its output cap stopped it. */
  readonly capped: boolean;
}

/** Reads an exit record's text; `undefined` when it is not a complete record. */
export function parseExitRecord(text: string | undefined): ExitRecord | undefined {
  if (text === undefined) return undefined;
  const [code, duration, timed, capped] = text.split("\n");
  const exitCode = Number(code);
  if (code === undefined || code === "" || !Number.isInteger(exitCode)) return undefined;
  return { exitCode, durationMs: Number(duration) || 0, timedOut: timed === "1", capped: capped === "1" };
}

/** A start record, as {@link parseStartRecord} reads it. */
export interface StartRecord {
  readonly commandId: string;
  /** Epoch ms, when readable. */
  readonly startedAt: number | undefined;
  /** The command's output cap in bytes, when recorded. */
  readonly maxOutputBytes: number | undefined;
}

/** Reads a start record's text; `undefined` when absent. */
export function parseStartRecord(text: string | undefined): StartRecord | undefined {
  if (text === undefined) return undefined;
  const [commandId = "", started, cap] = text.split("\n");
  const startedAt = Number(started);
  const maxOutputBytes = Number(cap);
  return {
    commandId,
    startedAt: Number.isFinite(startedAt) && started !== "" ? startedAt : undefined,
    maxOutputBytes: Number.isInteger(maxOutputBytes) && maxOutputBytes > 0 ? maxOutputBytes : undefined,
  };
}

/**
 * Reads the first line the script printed: the command id it reports
 * (claimed or existing) and whether this start claimed it; `undefined` for
 * anything else.
 */
export function parseStartLine(line: string): { readonly commandId: string; readonly claimed: boolean } | undefined {
  if (line.startsWith(`${STARTED_LINE} `)) return { commandId: line.slice(STARTED_LINE.length + 1), claimed: true };
  if (line.startsWith(`${EXISTS_LINE} `) && line.length > EXISTS_LINE.length + 1) {
    return { commandId: line.slice(EXISTS_LINE.length + 1), claimed: false };
  }
  return undefined;
}
