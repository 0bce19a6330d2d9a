import type { ExecEvent } from "@sandport/core";
import {
  type CommandRun,
  createCallBudget,
  ranOutOfTime,
  startCommandRun,
  type VendorCommand,
  type VendorEnd,
} from "@sandport/core/adapter";
import { type CommandPlan, discardStdin, stageStdin } from "./command-plan.js";
import type { E2BContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { killProcessTree, lostOutput, startProcess } from "./process-control.js";

/**
 * E2B's vendor command for the kit's engine: stage stdin, `commands.run` in
 * the background with the run budget sent to envd (`startProcess`), the
 * SDK's `wait()` read as the end, and the process-tree kill.
 */
export function e2bCommand(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  plan: CommandPlan,
  openStdin: boolean,
): VendorCommand {
  return {
    start: async (output, signal) => {
      const startedAt = performance.now();
      await stageStdin(sandbox, plan, { ...createCallBudget(context.options.timeouts.fileMs), signal });
      const process = await startProcess(context, sandboxId, sandbox, plan, signal, output, openStdin).catch(
        async (error: unknown) => {
          await discardStdin(sandbox, plan);
          throw error;
        },
      );
      const ranOut = () => ranOutOfTime(performance.now() - startedAt, plan.timeoutMs);
      const ended = process.wait().then(
        (): VendorEnd => ({ kind: "exited", exitCode: 0 }),
        (error: unknown) => readEnd(error, ranOut()),
      );
      return { pid: process.pid, ended };
    },
    kill: async (process) => {
      await killProcessTree(sandbox, process?.pid as number | undefined, plan.marker);
    },
  };
}

/** What the SDK's `wait()` rejection says about the end: an exit code, envd's timeout, a kill, or a broken stream. */
function readEnd(error: unknown, ranOut: boolean): VendorEnd {
  const exitCode = (error as { exitCode?: unknown }).exitCode;
  const name = (error as { name?: unknown }).name;
  if (name === "CommandExitError" && typeof exitCode === "number") {
    if (exitCode >= 0) return { kind: "exited", exitCode };
    return ranOut ? { kind: "timed-out" } : { kind: "killed" };
  }
  if (name === "TimeoutError" || ranOut) return { kind: "timed-out" };
  return { kind: "lost", error };
}

/** What {@link startRun} does besides starting the plan. */
export interface RunOptions {
  /** Cancels the start; while the command runs, aborting it kills the command (`exec`: the call's signal). */
  readonly signal: AbortSignal;
  /** Receives `started` first, then the output chunks within the cap, as they happen. */
  readonly emit?: (event: ExecEvent) => void;
  /** Keeps the command's stdin open for `sendStdin` (spawn). Default: no stdin. */
  readonly openStdin?: boolean;
}

/** Starts `plan` in `sandbox` on the kit's command engine (`startCommandRun`) and resolves once it runs. */
export function startRun(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  plan: CommandPlan,
  options: RunOptions,
): Promise<CommandRun> {
  return startCommandRun(e2bCommand(context, sandboxId, sandbox, plan, options.openStdin ?? false), {
    provider: PROVIDER,
    timeoutMs: plan.timeoutMs,
    maxOutputBytes: plan.maxOutputBytes,
    signal: options.signal,
    ...(options.emit ? { emit: options.emit } : {}),
    lostOutput: (error, pid) => lostOutput(sandboxId, pid, error),
  });
}
