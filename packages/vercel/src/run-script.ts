import type { ExecResult } from "@sandport/core";
import { type CallBudget, runCommandToEnd, SCRIPT_OUTPUT_BYTES } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";
import { lostOutput, vercelCommand } from "./vendor-command.js";

/**
 * Runs one of the adapter's own scripts in `cwd` to completion on the kit's
 * engine, within the caller's time and signal, its output capped at
 * `maxOutputBytes`: non-zero exits are results.
 * It carries no kill marker, so it is never swept: a script whose answer was
 * lost runs to its end (the session claim relies on that), and Vercel ends
 * it at its timeout, the caller's remaining time.
 */
export function runScript(
  sandbox: VercelSandbox,
  argv: readonly string[],
  cwd: string,
  budget: CallBudget & { readonly signal: AbortSignal },
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const [cmd = "true", ...args] = argv;
  const timeoutMs = Math.max(1, budget.remainingMs());
  const plan = { cmd, args, cwd, env: {}, marker: "", timeoutMs, maxOutputBytes };
  return runCommandToEnd(vercelCommand(sandbox, plan, timeoutMs), {
    provider: PROVIDER,
    timeoutMs,
    maxOutputBytes,
    signal: budget.signal,
    lostOutput: (error) => lostOutput(sandbox.name, error, "exec"),
  });
}
