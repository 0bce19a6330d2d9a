import type { ExecResult } from "@sandport/core";
import { runCommandToEnd, SCRIPT_OUTPUT_BYTES } from "@sandport/core/adapter";
import { planCommand } from "./exec.js";
import type { ModalSandbox } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { commandOptions, modalCommand } from "./vendor-command.js";

/**
 * Runs one of the adapter's own helper scripts (symlink guard, chmod, a
 * guarded read, a file archive's unpacking) in the workspace on the kit's
 * engine, to completion, within the caller's time, its output capped at
 * `maxOutputBytes`; `stdin` is written to it first.
 */
export function runScript(
  options: ResolvedOptions,
  sandbox: ModalSandbox,
  script: string,
  call: { readonly signal: AbortSignal; remainingMs(): number },
  stdin?: Uint8Array,
  maxOutputBytes = SCRIPT_OUTPUT_BYTES,
): Promise<ExecResult> {
  const request = {
    shell: script,
    timeoutMs: Math.max(1, call.remainingMs()),
    maxOutputBytes,
    ...(stdin === undefined ? {} : { stdin }),
  };
  const plan = planCommand(options, request, false);
  return runCommandToEnd(modalCommand(sandbox, plan), {
    ...commandOptions(plan, sandbox.sandboxId),
    signal: call.signal,
  });
}
