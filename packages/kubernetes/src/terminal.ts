import {
  enterCwdScript,
  MISSING_CWD_EXIT,
  type OpOptions,
  type Terminal,
  type TerminalRequest,
  validateTerminalRequest,
} from "@sandport/core";
import { missingCwd, ShellTerminal, shellTerminalPlan } from "@sandport/core/adapter";
import { planCommand } from "./command-plan.js";
import type { KubernetesContext } from "./context.js";
import type { PlaneProcess } from "./data-plane.js";
import { PROVIDER } from "./handle.js";
import { runScript } from "./run-script.js";

/**
 * `openTerminal` on either data plane: sandboxd's `Start` with its `pty`
 * (resized by `ResizeTTY`), or pod exec with `tty=true` (resized by channel
 * 4's `{"Width","Height"}`, the first size sent at once). The request is
 * planned as for `spawn` (working directory checked first, env and the kill
 * marker in the script, `TERM` defaulting to `xterm-256color`) and runs
 * through the kit's {@link shellTerminalPlan}: the script prints a one-time
 * sequence with its process id, then `exec`s the program, so the kit's
 * {@link ShellTerminal} knows when it runs and holds its run budget and
 * output cap. A stop is the plane's kill (the process group, then every
 * process carrying the marker); another signal is `kill -s` to the
 * program's process group, by one more command (the program leads the
 * terminal's session). sandboxd reports a program ended by a signal as -1
 * and pod exec as its exit status: neither names the signal, so such an
 * exit has `signal: null`.
 */
export async function openTerminal(
  context: KubernetesContext,
  handle: unknown,
  request: TerminalRequest,
  op?: OpOptions,
): Promise<Terminal> {
  const { workspaceRoot, timeouts } = context.options;
  const { size } = validateTerminalRequest(request, { root: workspaceRoot, provider: PROVIDER });
  const { cols: _cols, rows: _rows, ...command } = request;
  const plan = planCommand(
    context.options,
    { ...command, env: { TERM: "xterm-256color", ...command.env } } as typeof command,
    true,
  );
  const shell = shellTerminalPlan(plan.script, { reportPid: true });
  // The program's script without a login shell to type it into: the planned variable's value, run as it is.
  const [script = ""] = Object.values(shell.env);
  return context.onInstance(handle, op, "openTerminal", timeouts.lookupMs, async (pod, call, claimName) => {
    // The workspace root, which a launch does not make, is made here when missing.
    const check = enterCwdScript(plan.cwd, context.options.workspaceRoot);
    const checked = await runScript(context, claimName, pod, check, call);
    if (checked.exitCode === MISSING_CWD_EXIT) throw missingCwd(PROVIDER, plan.cwd, { sandboxId: claimName });
    let started: PlaneProcess | undefined;
    /** One call about the running program, within `lookupMs`, its errors mapped. */
    const onProcess = (operation: string, work: (process: PlaneProcess) => Promise<void>) =>
      context.run(undefined, { operation, sandboxId: claimName }, timeouts.lookupMs, async () => {
        if (started) await work(started);
      });
    const terminal = new ShellTerminal(PROVIDER, shell, {
      stop: () => onProcess("kill", (process) => process.kill(AbortSignal.timeout(timeouts.lookupMs))),
      write: (bytes) => onProcess("write", (process) => process.write(bytes)),
      resize: (cells) => onProcess("resize", (process) => process.resize(cells)),
      signal: async (signal, pid) => {
        if (pid === undefined) return;
        const name = signal.slice(3);
        const kill = `kill -s ${name} -- -${pid} 2>/dev/null || kill -s ${name} ${pid} 2>/dev/null; true`;
        await context.run(undefined, { operation: "kill", sandboxId: claimName }, timeouts.lookupMs, (signalCall) =>
          runScript(context, claimName, pod, kill, signalCall),
        );
      },
    });
    const stopOnAbort = () => void terminal.abort();
    op?.signal?.addEventListener("abort", stopOnAbort, { once: true });
    try {
      const output = (_stream: "stdout" | "stderr", data: Uint8Array) => terminal.data(data);
      started = await context.plane().start(pod, script, plan.marker, output, call.signal, size);
      terminal.started(plan.timeoutMs, plan.maxOutputBytes);
      void started.ended.then((end) => {
        op?.signal?.removeEventListener("abort", stopOnAbort);
        terminal.finish(end, end.kind === "lost" ? end.error : undefined);
      });
      await terminal.running(call.signal);
    } catch (error) {
      await terminal.kill().catch(() => {});
      throw error;
    }
    return terminal;
  });
}
