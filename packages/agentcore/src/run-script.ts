import { randomUUID } from "node:crypto";
import type { ExecResult } from "@sandport/core";
import { type CallBudget, runCommandToEnd, SCRIPT_OUTPUT_BYTES } from "@sandport/core/adapter";
import type { AgentCoreContext } from "./context.js";
import { agentCoreCommand, commandOptions } from "./vendor-command.js";

/**
 * Runs one of the adapter's own short scripts (launch setup, symlink guard,
 * the file operations) on the kit's engine, to completion within the
 * caller's time, in the working directory, its output capped at `maxOutputBytes`.
 */
export function runScript(
  context: AgentCoreContext,
  sessionId: string,
  script: string,
  call: CallBudget & { readonly signal: AbortSignal },
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const plan = {
    command: script,
    cwd: context.options.workingDirectory,
    marker: randomUUID(),
    timeoutMs: Math.max(1, call.remainingMs()),
    maxOutputBytes,
  };
  return runCommandToEnd(agentCoreCommand(context, sessionId, plan, call), commandOptions(plan, call.signal));
}
