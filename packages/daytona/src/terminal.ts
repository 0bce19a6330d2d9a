import {
  invalidRequest,
  type OpOptions,
  SandportError,
  type Terminal,
  type TerminalRequest,
  type TerminalSize,
  validateTerminalRequest,
} from "@sandport/core";
import { processExited, ShellTerminal, shellTerminalPlan } from "@sandport/core/adapter";
import { planCommand, startInWorkspace } from "./command-plan.js";
import type { DaytonaContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaPtyHandle } from "./internal/sdk-types.js";
import { checkCwd } from "./session-run.js";

/** Largest `cols` or `rows` the daemon accepts: it refuses 1000 and more. */
const MAX_DAYTONA_CELLS = 999;

/**
 * `openTerminal` on Daytona. The SDK's `process.createPty` always starts the
 * sandbox user's shell (`$SHELL -i -l`) on a pseudo-terminal of the daemon;
 * the program replaces it through the kit's {@link shellTerminalPlan}: the
 * request, planned as for `spawn` (argv quoted, `shell` in `sh -c`, the kill
 * marker in its env), waits in an environment variable of the shell, and one
 * typed line `exec`s it after printing a one-time sequence with the process
 * id. The kit's {@link ShellTerminal} drops the shell's output before that
 * sequence and holds the run budget and output cap; `openTerminal` resolves
 * once the sequence arrives.
 *
 * Here are only the daemon's calls: a stop deletes the session
 * (`killPtySession`), which the daemon does by SIGKILLing the program's
 * process tree. `kill(signal)` other than SIGKILL goes to the program's
 * process group with one `executeCommand` (`kill -s`), as the program is the
 * terminal's session leader. The daemon reports an exit by a signal as code
 * -1 without naming it: the exit then has neither code nor signal.
 */
export async function openTerminal(
  context: DaytonaContext,
  handle: unknown,
  request: TerminalRequest,
  op?: OpOptions,
): Promise<Terminal> {
  const { workspaceRoot, timeouts } = context.options;
  const { size } = validateTerminalRequest(request, { root: workspaceRoot, provider: PROVIDER });
  checkSize(size);
  // The command part as spawn sees it: the plan validates and resolves it (cwd, env, limits).
  const { cols: _cols, rows: _rows, ...command } = request;
  const plan = planCommand(context.options, command, "interactive");
  // In the workspace root, the pty starts in home and the typed line makes and enters the workspace first.
  const start = startInWorkspace(context.options, plan.cwd, plan.command);
  const shell = shellTerminalPlan(start.command, { reportPid: true });
  return context.onInstance(handle, op, "openTerminal", timeouts.lookupMs, async (sandbox, call) => {
    const home = await context.homeOf(sandbox);
    if (plan.cwd !== home && plan.cwd !== workspaceRoot) await checkCwd(sandbox, plan, call);
    const sessionId = `sandport-terminal-${shell.id}`;
    let pty: DaytonaPtyHandle | undefined;
    /** One daemon call within `lookupMs`. */
    const daemon = (operation: string, request: () => Promise<unknown>): Promise<unknown> =>
      context.run(undefined, { operation, sandboxId: sandbox.id }, timeouts.lookupMs, request);
    const terminal = new ShellTerminal(PROVIDER, shell, {
      // Deleting the session: the daemon SIGKILLs the program and its descendants.
      stop: () =>
        daemon("kill", () => sandbox.process.killPtySession(sessionId)).then(
          () => undefined,
          (error: unknown) => {
            // Not found: the shell ended on its own meanwhile; its exit follows.
            if (!SandportError.hasCode(error, "NOT_FOUND")) throw error;
          },
        ),
      write: async (bytes) => {
        try {
          await pty?.sendInput(bytes);
        } catch (error) {
          // The SDK refuses once the socket is closed: the shell has ended, or is ending.
          throw processExited(PROVIDER, error);
        }
      },
      resize: async (cells) => {
        await daemon("resize", async () => pty?.resize(cells.cols, cells.rows));
      },
      checkSize,
      signal: async (signal, pid) => {
        if (pid === undefined) return;
        // The program leads the terminal's session and its process group: the signal goes to the group.
        await daemon("kill", () =>
          sandbox.process.executeCommand(`kill -s ${signal.slice(3)} -- -${pid} 2>/dev/null; true`),
        );
      },
    });
    const stopOnAbort = () => void terminal.abort();
    op?.signal?.addEventListener("abort", stopOnAbort, { once: true });
    try {
      const created = await sandbox.process.createPty({
        id: sessionId,
        cwd: start.processCwd,
        envs: { TERM: "xterm-256color", ...plan.env, ...shell.env },
        cols: size.cols,
        rows: size.rows,
        onData: (bytes) => terminal.data(bytes),
      });
      pty = created;
      terminal.started(plan.timeoutMs, plan.maxOutputBytes);
      created.wait().then(
        (result) => ended(terminal, created, result.exitCode, result.error),
        (error: unknown) => ended(terminal, created, undefined, error),
      );
      await created.sendInput(shell.typedLine);
      await terminal.running(call.signal);
    } catch (error) {
      await terminal.kill().catch(() => {});
      throw error;
    }
    return terminal;
  });
}

/** The shell's session ended: its exit code as the daemon reported it (-1: ended by a signal, so killed). */
function ended(terminal: ShellTerminal, pty: DaytonaPtyHandle, exitCode: number | undefined, error: unknown): void {
  terminal.finish(exitCode !== undefined && exitCode >= 0 ? { kind: "exited", exitCode } : { kind: "killed" }, error);
  void pty.disconnect();
}

/** Refuses a size the daemon does not take. */
function checkSize(size: TerminalSize): void {
  if (size.cols > MAX_DAYTONA_CELLS || size.rows > MAX_DAYTONA_CELLS) {
    throw invalidRequest(`daytona terminals have at most ${MAX_DAYTONA_CELLS} columns and rows`, { ...size }, PROVIDER);
  }
}
