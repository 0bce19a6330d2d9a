import { randomUUID } from "node:crypto";
import type { ExecResult } from "@sandport/core";
import { type CallBudget, runCommandToEnd, SCRIPT_OUTPUT_BYTES } from "@sandport/core/adapter";
import type { Agent37Context } from "./context.js";
import { EXEC_CAP_MS } from "./options.js";
import { agent37Command, commandOptions, FROM_HOME } from "./vendor-command.js";

/**
 * Runs one of the adapter's own short scripts (workspace setup, symlink
 * guard, chmod, a guarded read) from `$HOME` on the kit's engine, to
 * completion within the caller's time, its output capped at `maxOutputBytes`.
 */
export function runScript(
  context: Agent37Context,
  instanceId: string,
  script: string,
  call: CallBudget & { readonly signal: AbortSignal },
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const plan = {
    command: `${FROM_HOME}\nexec 0</dev/null\n${script}`,
    cwd: context.options.homeDirectory,
    marker: randomUUID(),
    timeoutMs: Math.max(1, Math.min(EXEC_CAP_MS, call.remainingMs())),
    maxOutputBytes,
  };
  return runCommandToEnd(agent37Command(context, instanceId, plan, call), commandOptions(plan, call.signal));
}
