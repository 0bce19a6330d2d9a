import {
  type OpOptions,
  SandportError,
  type Terminal,
  type TerminalRequest,
  validateTerminalRequest,
} from "@sandport/core";
import { KILL_DEADLINE_MS, ShellTerminal, shellTerminalPlan } from "@sandport/core/adapter";
import { planCommand } from "./command-plan.js";
import type { E2BContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { killProcessTree } from "./process-control.js";

/**
 * `openTerminal` on E2B. The SDK's `pty.create` always starts `/bin/bash -i -l`
 * on a pseudo-terminal (envd's `Start` with `pty`); the program replaces it
 * through the kit's {@link shellTerminalPlan}: the request, planned as for
 * `exec` (argv quoted, `shell` in `sh -c`, the per-command marker that lets a
 * kill reach its descendants), waits in an environment variable of the shell,
 * and one typed line `exec`s it. The kit's {@link ShellTerminal} drops the
 * shell's output before the program's start sequence and holds the run budget
 * and output cap; `openTerminal` resolves once the sequence arrives.
 *
 * Here are only envd's calls: a stop kills the whole tree (envd's stream
 * deadline a little later is a backstop). envd signals a terminal's process
 * only with SIGKILL, so `kill` with another signal is `UNSUPPORTED`; an exit
 * by a signal reports neither code nor signal (the SDK reports only `-1`).
 */
export async function openTerminal(
  context: E2BContext,
  handle: unknown,
  request: TerminalRequest,
  op?: OpOptions,
): Promise<Terminal> {
  const { workspaceRoot, timeouts } = context.options;
  const { size } = validateTerminalRequest(request, { root: workspaceRoot, provider: PROVIDER });
  // The command part as exec sees it: the plan validates and resolves it (cwd, env, limits) as for spawn.
  const { cols: _cols, rows: _rows, ...command } = request;
  const plan = planCommand(context.options, command, true);
  const shell = shellTerminalPlan(plan.command);
  return context.onInstance(handle, op, "openTerminal", timeouts.lookupMs, async (sandbox, call) => {
    let pid: number | undefined;
    /** One envd call about the running terminal within `lookupMs`. */
    const envd = async (
      operation: string,
      request: (pid: number, options: { requestTimeoutMs: number; signal: AbortSignal }) => Promise<unknown>,
    ): Promise<void> => {
      const site = { operation, sandboxId: sandbox.sandboxId };
      await context.run(undefined, site, timeouts.lookupMs, (envdCall) =>
        request(pid as number, { requestTimeoutMs: envdCall.remainingMs(), signal: envdCall.signal }),
      );
    };
    const terminal = new ShellTerminal(PROVIDER, shell, {
      stop: async () => {
        await killProcessTree(sandbox, pid, plan.marker);
      },
      write: (bytes) => envd("write", (running, options) => sandbox.pty.sendInput(running, bytes, options)),
      resize: (cells) => envd("resize", (running, options) => sandbox.pty.resize(running, cells, options)),
      signal: async (signal) => {
        throw new SandportError({
          code: "UNSUPPORTED",
          provider: PROVIDER,
          retryable: false,
          message: `e2b signals a terminal's process only with SIGKILL, not ${signal}; write "\\u0003" to interrupt its foreground job`,
          details: { feature: `kill(${signal})` },
        });
      },
    });
    const created = await sandbox.pty.create({
      cols: size.cols,
      rows: size.rows,
      cwd: plan.processCwd,
      envs: { ...plan.env, ...shell.env },
      timeoutMs: plan.timeoutMs + KILL_DEADLINE_MS,
      // No signal: it would end the terminal's stream with this call. The start is bounded by the request timeout.
      requestTimeoutMs: call.remainingMs(),
      onData: (bytes) => terminal.data(bytes),
    });
    pid = created.pid;
    terminal.started(plan.timeoutMs, plan.maxOutputBytes);
    created.wait().then(
      () => terminal.finish({ kind: "exited", exitCode: 0 }),
      (error: unknown) => terminal.finish(endOf(error), error),
    );
    const stopOnAbort = () => void terminal.abort();
    op?.signal?.addEventListener("abort", stopOnAbort, { once: true });
    try {
      await sandbox.pty.sendInput(created.pid, Buffer.from(shell.typedLine), { requestTimeoutMs: call.remainingMs() });
      await terminal.running(call.signal);
    } catch (error) {
      await terminal.kill();
      throw error;
    }
    return terminal;
  });
}

/** How a `wait()` rejection ended the shell: its exit code, or `-1` (killed, or ended by a signal) as killed. */
function endOf(error: unknown): { kind: "exited"; exitCode: number } | { kind: "killed" } {
  const code = (error as { exitCode?: unknown }).exitCode;
  return typeof code === "number" && code >= 0 ? { kind: "exited", exitCode: code } : { kind: "killed" };
}
