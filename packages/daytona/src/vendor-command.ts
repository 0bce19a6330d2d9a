import { retry, SandportError } from "@sandport/core";
import { type CallBudget, missingCwd, type VendorCommand, type VendorEnd } from "@sandport/core/adapter";
import { type CommandPlan, refusedOnly, stageStdin } from "./command-plan.js";
import { seconds } from "./context.js";
import { answerLost, mapDaytonaError, statusOf, wasRefused } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { sweep } from "./run-script.js";

/** How close to the timeout Daytona sent a 408 must come for it to be the command's timeout. */
const TIMEOUT_SLACK_MS = 250;

/**
 * `exec`'s vendor command for the kit's engine: one `executeCommand` (its
 * large stdin staged first; a start Daytona refused with 429 or 503 sent
 * again), its merged output read from the answer, its run budget sent in
 * whole seconds (a 408 at that time is the vendor's timeout). The kill is a
 * sweep of everything carrying the command's marker. A failed answer rejects
 * with the error the caller sees: refused (nothing ran) or, when the answer
 * was lost, with an unknown outcome (the engine kills what may still run).
 */
export function executeCommandRun(
  sandbox: DaytonaSandbox,
  sandboxId: string,
  plan: CommandPlan,
  budget: CallBudget,
): VendorCommand {
  return {
    start: async (output, signal) => {
      await stageStdin(sandbox, plan, budget);
      const started = performance.now();
      const timeoutSeconds = seconds(plan.timeoutMs);
      const answer = retry(
        () => sandbox.process.executeCommand(plan.command, plan.processCwd, plan.env, timeoutSeconds),
        refusedOnly(signal),
      );
      const ended = answer.then(
        (response): VendorEnd => {
          if (response.exitCode === -1) throw cwdNotFound(sandboxId, plan.cwd, response.result);
          output("stdout", response.result ?? "");
          return { kind: "exited", exitCode: response.exitCode };
        },
        async (error: unknown): Promise<VendorEnd> => {
          if (statusOf(error) !== 408 || performance.now() - started < timeoutSeconds * 1000 - TIMEOUT_SLACK_MS) {
            throw startFailure(error, sandboxId);
          }
          // Daytona killed the command's process group; a descendant that left it is swept too.
          await sweep(sandbox, plan.marker, sandboxId);
          return { kind: "timed-out" };
        },
      );
      return { pid: plan.marker, ended };
    },
    kill: () => sweep(sandbox, plan.marker, sandboxId),
  };
}

/** A start that failed: refused (nothing ran) or, when the answer was lost, with an unknown outcome. */
function startFailure(error: unknown, sandboxId: string): SandportError {
  const mapped = mapDaytonaError(error, { operation: "exec", sandboxId });
  const status = statusOf(error);
  const unknown = answerLost(error) || mapped.code === "DEADLINE_EXCEEDED" || (status !== undefined && status >= 500);
  if (!unknown || wasRefused(error)) return mapped;
  return new SandportError({
    code: mapped.code,
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `${mapped.message} (the command may have run: its outcome is unknown)`,
    details: { ...mapped.details, outcomeUnknown: true },
  });
}

/** Daytona's answer to a command whose working directory is missing: exit -1 and no run. */
export function cwdNotFound(sandboxId: string, cwd: string, result: string | undefined): SandportError {
  const reason = `executeCommand answered exit -1${result?.trim() ? `: ${result.trim()}` : ""}`;
  return missingCwd(PROVIDER, cwd, { sandboxId, reason });
}
