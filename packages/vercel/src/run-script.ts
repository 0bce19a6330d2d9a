import { type ExecResult, enterWorkspaceScript } from "@sandport/core";
import { type CallBudget, runCommandToEnd, SCRIPT_OUTPUT_BYTES, workspaceEntry } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { lostOutput, vercelCommand } from "./vendor-command.js";

/**
 * Runs one of the adapter's own scripts in the workspace root to completion
 * on the kit's engine, within the caller's time and signal, its output capped
 * at `maxOutputBytes`: non-zero exits are results, as is a workspace that
 * could not be made. Its `sh` starts in the home directory and makes the
 * workspace first when missing (a launch does not make it), by its path from
 * there (`workspaceEntry`), then enters it.
 * It carries no kill marker, so it is never swept: a script whose answer was
 * lost runs to its end (the session claim relies on that), and Vercel ends
 * it at its timeout, the caller's remaining time.
 */
export function runScript(
  sandbox: VercelSandbox,
  argv: readonly string[],
  options: Pick<ResolvedOptions, "homeDirectory" | "workspaceRoot">,
  budget: CallBudget & { readonly signal: AbortSignal },
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const { start, path } = workspaceEntry(options.homeDirectory, options.workspaceRoot);
  const args = ["-c", `${enterWorkspaceScript(path)} && exec "$@"`, "sh", ...argv];
  const timeoutMs = Math.max(1, budget.remainingMs());
  const plan = { cmd: "sh", args, cwd: start, env: {}, marker: "", timeoutMs, maxOutputBytes };
  return runCommandToEnd(vercelCommand(sandbox, plan, timeoutMs), {
    provider: PROVIDER,
    timeoutMs,
    maxOutputBytes,
    signal: budget.signal,
    lostOutput: (error) => lostOutput(sandbox.name, error, "exec"),
  });
}
