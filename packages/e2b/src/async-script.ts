import { posix } from "node:path";
import { quoteShellArg } from "@sandport/core";
import type { CommandPlan } from "./exec.js";

/** Where one async command session keeps its records inside the sandbox (absolute paths). */
export interface SessionFiles {
  /** The session's directory; it exists once the session was started. */
  readonly directory: string;
  /** `<command id>\n<start time, epoch ms>\n`, written right after the directory is claimed. */
  readonly record: string;
  /** `<exit code>\n<duration ms>\n<1 when the watchdog killed it>\n`, written when the command ends. */
  readonly exit: string;
  readonly stdout: string;
  readonly stderr: string;
}

/** The first line the script prints: the session was claimed by this start, or already existed. */
export const STARTED_LINE = "sandport-session started";
/** See {@link STARTED_LINE}; followed by the existing command's id. */
export const EXISTS_LINE = "sandport-session exists";
/** Exit code of a start that found its session already present (no second copy ran). */
export const SESSION_EXISTS_EXIT = 75;

/** The record paths of a session under `stateDirectory`. */
export function sessionFiles(stateDirectory: string, sessionId: string): SessionFiles {
  const directory = `${stateDirectory}/${sessionId}`;
  return {
    directory,
    record: `${directory}/record`,
    exit: `${directory}/exit`,
    stdout: `${directory}/stdout`,
    stderr: `${directory}/stderr`,
  };
}

/**
 * The script an async command runs as. It claims the session by creating its
 * directory (`mkdir` is atomic), so only one start ever runs the command; a
 * start that finds the directory prints the existing command's id and exits
 * 75. The winner prints its own id, detaches its output from the envd stream,
 * runs the command in its own process group with stdout/stderr to files, and
 * a watchdog kills the whole group at the timeout (marking it timed out).
 * Finally it writes the exit record atomically (write, then rename).
 *
 * All paths are relative to the command's working directory, so they hold
 * wherever the sandbox's tree is mounted.
 */
export function asyncScript(plan: CommandPlan, files: SessionFiles, commandId: string): string {
  const seconds = (plan.timeoutMs / 1000).toFixed(3);
  const directory = posix.relative(plan.cwd, files.directory) || ".";
  const parent = posix.dirname(directory);
  return [
    `d=${quoteShellArg(directory)}`,
    `now_ms() { local t="\${EPOCHREALTIME:-}"; if [ -n "$t" ]; then t="\${t/[.,]/}"; echo "$(( 10#$t / 1000 ))"; else echo "$(( $(date +%s) * 1000 ))"; fi; }`,
    `mkdir -p -- ${quoteShellArg(parent)} || exit 1`,
    `if ! mkdir -- "$d" 2>/dev/null; then`,
    `  for i in $(seq 100); do [ -s "$d/record" ] && break; sleep 0.05; done`,
    `  echo "${EXISTS_LINE} $(head -n 1 "$d/record" 2>/dev/null)"; exit ${SESSION_EXISTS_EXIT}`,
    "fi",
    "start=$(now_ms)",
    `printf '%s\\n%s\\n' ${quoteShellArg(commandId)} "$start" >"$d/record.tmp" && mv -f -- "$d/record.tmp" "$d/record"`,
    `echo "${STARTED_LINE} ${commandId}"`,
    "exec >/dev/null 2>&1",
    // Job control gives the command its own process group, so the watchdog stops all of it.
    "set -m",
    `( ${plan.command} ) >"$d/stdout" 2>"$d/stderr" </dev/null &`,
    "child=$!",
    `( sleep ${seconds}; : >"$d/timed-out"; kill -TERM -- "-$child"; sleep 2; kill -KILL -- "-$child" ) &`,
    "watchdog=$!",
    `wait "$child"; code=$?`,
    `kill -- "-$watchdog" 2>/dev/null`,
    `timed=0; [ -e "$d/timed-out" ] && timed=1`,
    `printf '%s\\n%s\\n%s\\n' "$code" "$(( $(now_ms) - start ))" "$timed" >"$d/exit.tmp" && mv -f -- "$d/exit.tmp" "$d/exit"`,
    `exit "$code"`,
  ].join("\n");
}
