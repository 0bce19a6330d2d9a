import { enterCwdScript, MISSING_CWD_EXIT, SandportError } from "@sandport/core";
import {
  type CommandRunOptions,
  KILL_DEADLINE_MS,
  missingCwd,
  type StdinCommand,
  type VendorProcess,
} from "@sandport/core/adapter";
import type { CommandPlan } from "./command-plan.js";
import type { KubernetesContext } from "./context.js";
import type { PlaneProcess, ProcessPlane } from "./data-plane.js";
import { PROVIDER } from "./handle.js";

/**
 * One planned command as the kit's vendor command, on the runtime's data
 * plane: output as raw bytes (both planes carry bytes), the request's
 * stdin written and closed after the start (`exec`), or kept open
 * (`spawn`: the kit writes and closes it), the kill the plane's.
 */
export function kubernetesCommand(
  context: KubernetesContext,
  plane: ProcessPlane,
  claimName: string,
  pod: string,
  plan: CommandPlan,
): StdinCommand {
  let started: PlaneProcess | undefined;
  const stdinCall = (operation: string, work: (process: PlaneProcess) => Promise<void>) =>
    context.run(undefined, { operation, sandboxId: claimName }, context.options.timeouts.lookupMs, async () => {
      if (!started) throw new Error("the process has not started");
      await work(started);
    });
  return {
    rawOutput: true,
    start: async (output, signal): Promise<VendorProcess> => {
      // A spawn's script may already have read input by the time its `cd` fails; a first command checks the directory.
      if (plan.openStdin) await assertCwd(plane, pod, plan, claimName, context.options.workspaceRoot, signal);
      const process = await plane.start(pod, plan.script, plan.marker, output, signal);
      started = process;
      if (!plan.openStdin && plan.stdin !== undefined) {
        const data = typeof plan.stdin === "string" ? new TextEncoder().encode(plan.stdin) : plan.stdin;
        // In the background: a command that never reads its stdin must still reach its end (or its budget).
        void process
          .write(data)
          .then(() => process.closeStdin())
          .catch(() => {
            // As on a pipe: input to a command that has ended (or stopped reading) is lost.
          });
      }
      return { pid: process.pid, ended: process.ended };
    },
    kill: async (_process, signal) => {
      if (!started) return;
      await started.kill(signal);
    },
    stdin: {
      write: (data) =>
        stdinCall("write", (process) =>
          process.write(typeof data === "string" ? new TextEncoder().encode(data) : data),
        ),
      close: () => stdinCall("closeStdin", (process) => process.closeStdin()),
    },
  };
}

/**
 * Refuses (`NOT_FOUND`, `missingCwd`) a plan whose working directory does not
 * exist, with one short command; the workspace root it makes when missing.
 */
async function assertCwd(
  plane: ProcessPlane,
  pod: string,
  plan: CommandPlan,
  claimName: string,
  workspace: string,
  signal: AbortSignal,
): Promise<void> {
  const check = `exec 0</dev/null; ${enterCwdScript(plan.cwd, workspace)}`;
  const process = await plane.start(pod, check, plan.marker, () => {}, signal);
  const end = await process.ended;
  if (end.kind === "exited" && end.exitCode === MISSING_CWD_EXIT)
    throw missingCwd(PROVIDER, plan.cwd, { sandboxId: claimName });
}

/** The engine's options for `plan`, on `signal`. */
export function commandOptions(claimName: string, plan: CommandPlan, signal: AbortSignal): CommandRunOptions {
  return {
    provider: PROVIDER,
    timeoutMs: plan.timeoutMs,
    maxOutputBytes: plan.maxOutputBytes,
    signal,
    killDeadlineMs: KILL_DEADLINE_MS,
    lostOutput: (error, pid) =>
      SandportError.isInstance(error)
        ? error
        : new SandportError({
            code: "PROVIDER_UNAVAILABLE",
            provider: PROVIDER,
            retryable: false,
            cause: error,
            message: `kubernetes: the output stream of process ${pid} in claim ${claimName} broke; it may still run`,
            details: { sandboxId: claimName, pid, outcomeUnknown: true },
          }),
  };
}
