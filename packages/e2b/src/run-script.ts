import { type ExecResult, enterWorkspaceScript } from "@sandport/core";
import { type CallBudget, SCRIPT_OUTPUT_BYTES, workspaceEntry } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { E2B_HOME } from "./options.js";
import { startRun } from "./vendor-command.js";

/**
 * Runs one of the adapter's own scripts (symlink guard, chmod, a guarded
 * read) in the workspace, to completion, within the caller's time, its
 * output capped at `maxOutputBytes`. It starts in the user's home and makes
 * the workspace first when nothing has (a launch does not), by its path from
 * there (`workspaceEntry`), then enters it.
 */
export async function runScript(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  script: string,
  budget: CallBudget & { readonly signal: AbortSignal },
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const workspace = context.options.workspaceRoot;
  const entry = workspaceEntry(E2B_HOME, workspace);
  const plan = {
    command: `${enterWorkspaceScript(entry.path)} && ${script}`,
    cwd: workspace,
    processCwd: entry.start,
    env: {},
    timeoutMs: Math.max(1, budget.remainingMs()),
    maxOutputBytes,
  };
  return (await startRun(context, sandboxId, sandbox, plan, { signal: budget.signal })).finished;
}
