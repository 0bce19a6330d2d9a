import { randomUUID } from "node:crypto";
import type { ExecResult } from "@sandport/core";
import { type CallBudget, runCommandToEnd, SCRIPT_OUTPUT_BYTES } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { commandOptions, freestyleCommand } from "./vendor-command.js";

/**
 * Runs one of the adapter's own short scripts (workspace setup, symlink
 * guard, a guarded read) on the kit's engine, to completion within the
 * caller's time, its output capped at `maxOutputBytes`, with `stdin` when
 * given (in the request: the caller keeps it within 1 MiB).
 */
export function runScript(
  context: FreestyleContext,
  vmId: string,
  script: string,
  call: CallBudget & { readonly signal: AbortSignal },
  stdin?: Uint8Array,
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const plan = {
    command: script,
    cwd: context.options.homeDirectory,
    marker: randomUUID(),
    timeoutMs: Math.max(1, call.remainingMs()),
    maxOutputBytes,
    ...(stdin === undefined ? {} : { stdin: Buffer.from(stdin).toString("base64") }),
  };
  return runCommandToEnd(freestyleCommand(context, vmId, plan, call), commandOptions(plan, call.signal));
}
