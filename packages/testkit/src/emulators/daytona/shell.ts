/**
 * How the daemon runs a command string, on the backend: with `bash` where the
 * sandbox has it, else `sh` (the daemon's `GetShell`), from a working
 * directory, with the sandbox's and the request's environment.
 *
 * @module
 */

import type { ArgvExecRequest, ExecResult, SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { OutputChunk } from "./session-table.js";

/** Picks the shell at run time; the script is `$1`, so it reaches the shell unchanged. */
const SHELL_SELECTOR = 'if command -v bash >/dev/null 2>&1; then exec bash -c "$1"; fi; exec sh -c "$1"';

/** Budget for a command without its own timeout: the daemon sets none, the port needs one. */
export const UNBOUNDED_COMMAND_MS = 24 * 60 * 60 * 1000;

/** One command to run. */
export interface ShellRun {
  readonly command: string;
  /** Workspace-relative working directory; the workspace root when absent. */
  readonly cwd: string | undefined;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /**
   * Send stderr into stdout's pipe (`2>&1` for the whole shell), as the
   * daemon's `process/execute` does: one stream in its true order.
   */
  readonly mergeOutput: boolean;
  /** Each chunk of output as it arrives. */
  readonly onChunk?: (chunk: OutputChunk) => void;
}

/** Writes to a running command's stdin; rejects once the command has ended. */
export type StdinWriter = (data: string) => Promise<void>;

/** How a command ended. */
export interface ShellOutcome {
  /** `null` when it was killed (timeout, abort). */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run a command string to its end on the backend. Rejects only when the backend could not run it. */
export async function runShell(backend: SandboxRuntime, handle: SandboxHandle, run: ShellRun): Promise<ShellOutcome> {
  const request = shellRequest(run);
  // The call's own deadline sits past the command's, so a timeout is reported as a result, not an error.
  const callOptions = { signal: run.signal, timeoutMs: run.timeoutMs + 30_000 };
  let result: ExecResult | undefined;
  if (backend.execStream) {
    for await (const event of backend.execStream(handle, request, callOptions)) {
      if (event.type === "exited") result = event.result;
      else if (event.type !== "started" && event.data !== "") run.onChunk?.({ stream: event.type, data: event.data });
    }
  } else {
    // A backend without streaming still runs the command; its output then arrives in one piece at the end.
    result = await backend.exec(handle, request, callOptions);
    if (result.stdout) run.onChunk?.({ stream: "stdout", data: result.stdout });
    if (result.stderr) run.onChunk?.({ stream: "stderr", data: result.stderr });
  }
  if (!result) throw new Error("the backend's command stream ended without an exit");
  return { exitCode: result.exitCode, timedOut: result.timedOut, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Run a command string whose stdin stays open until it ends, as the daemon
 * runs an async session command (its input pipe is held open for
 * `SendInput`): `attachStdin` receives the writer once the command runs.
 * Needs a backend with `spawn`; rejects only when the backend could not run it.
 */
export async function runShellWithStdin(
  backend: SandboxRuntime,
  handle: SandboxHandle,
  run: ShellRun,
  attachStdin: (writer: StdinWriter) => void,
): Promise<ShellOutcome> {
  if (!backend.spawn) throw new Error("the emulator's backend runtime has no spawn: stdin cannot stay open");
  const process = await backend.spawn(handle, shellRequest(run), { signal: run.signal });
  attachStdin((data) => process.write(data));
  for await (const event of process.events) {
    if ((event.type === "stdout" || event.type === "stderr") && event.data !== "") {
      run.onChunk?.({ stream: event.type, data: event.data });
    }
  }
  const result = await process.result;
  return { exitCode: result.exitCode, timedOut: result.timedOut, stdout: result.stdout, stderr: result.stderr };
}

/** The backend request for a run: the shell selector with the command as `$1`. */
function shellRequest(run: ShellRun): ArgvExecRequest {
  const script = run.mergeOutput ? `exec 2>&1; ${SHELL_SELECTOR}` : SHELL_SELECTOR;
  return {
    argv: ["sh", "-c", script, "daytona-shell", run.command],
    env: run.env,
    timeoutMs: run.timeoutMs,
    ...(run.cwd === undefined || run.cwd === "" ? {} : { cwd: run.cwd }),
  };
}
