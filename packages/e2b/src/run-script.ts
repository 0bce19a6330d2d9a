import type { ExecResult } from "@sandport/core";
import { type CallBudget, SCRIPT_OUTPUT_BYTES } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { startRun } from "./vendor-command.js";

/**
 * Runs one of the adapter's own scripts (symlink guard, chmod, a guarded
 * read) in the workspace, to completion, within the caller's time, its
 * output capped at `maxOutputBytes`.
 */
export async function runScript(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  script: string,
  budget: CallBudget & { readonly signal: AbortSignal },
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const plan = {
    command: script,
    cwd: context.options.workspaceRoot,
    env: {},
    timeoutMs: Math.max(1, budget.remainingMs()),
    maxOutputBytes,
  };
  return (await startRun(context, sandboxId, sandbox, plan, { signal: budget.signal })).finished;
}
