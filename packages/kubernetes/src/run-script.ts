import { randomUUID } from "node:crypto";
import { type ExecResult, enterWorkspaceScript } from "@sandport/core";
import { type CallBudget, runCommandToEnd, SCRIPT_OUTPUT_BYTES, type WorkspaceRunner } from "@sandport/core/adapter";
import type { CommandPlan } from "./command-plan.js";
import type { KubernetesContext } from "./context.js";
import { commandOptions, kubernetesCommand } from "./vendor-command.js";

/**
 * Runs one of the adapter's own scripts (file operations, the symlink
 * guard, a guarded read, a file archive's unpacking) in the claim's pod on the kit's engine,
 * to completion within the caller's time; `stdin` is written to it first.
 */
export function runScript(
  context: KubernetesContext,
  claimName: string,
  pod: string,
  script: string,
  call: CallBudget & { readonly signal: AbortSignal },
  stdin?: Uint8Array,
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const plan: CommandPlan = {
    script: stdin === undefined ? `exec 0</dev/null\n${script}` : script,
    cwd: "/",
    timeoutMs: Math.max(1, call.remainingMs()),
    maxOutputBytes,
    openStdin: false,
    marker: randomUUID(),
    ...(stdin === undefined ? {} : { stdin }),
  };
  return runCommandToEnd(
    kubernetesCommand(context, context.plane(), claimName, pod, plan),
    commandOptions(claimName, plan, call.signal),
  );
}

/** How the symlink guard, `chmod` and a guarded read run: one command in the workspace (made first when nothing has made it yet). */
export const inWorkspace: WorkspaceRunner<KubernetesContext, string> = (
  context,
  script,
  { sandboxId, instance, call },
  maxOutputBytes,
) =>
  runScript(
    context,
    sandboxId,
    instance,
    `${enterWorkspaceScript(context.options.workspaceRoot)} && ${script}`,
    call,
    undefined,
    maxOutputBytes,
  );
