import { randomUUID } from "node:crypto";
import { composeShellCommand, type ExecRequest } from "@sandport/core";
import { assertCommandFits, execCommands, planStdin, runCommandToEnd, validCommand } from "@sandport/core/adapter";
import type { VercelContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { type CommandPlan, lostOutput, vercelCommand } from "./vendor-command.js";

/**
 * Validates a request and turns it into what Vercel takes: the program and
 * its arguments, the working directory and the environment each in their own
 * field (a `shell` script runs as `sh -c <script>`). Vercel has no stdin, so
 * a request with stdin runs as `sh -c` reading it from base64 embedded in
 * the script, or above 64 KiB from a file staged beside the workspace
 * (`planStdin`). The timeout is the caller's, else the run budget.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest): CommandPlan {
  const { valid, ...common } = validCommand(options, request, PROVIDER);
  if (valid.stdin === undefined) {
    const [cmd, ...args] = valid.argv ? [...valid.argv] : ["sh", "-c", valid.shell as string];
    // Linux refuses any one argument over 128 KiB; say so before sending it.
    for (const argument of args) assertCommandFits(argument, PROVIDER);
    return { cmd: cmd as string, args, ...common };
  }
  const staging = { cwd: common.cwd, scratchDirectory: options.stdinDirectory, name: randomUUID() };
  const stdin = planStdin(composeShellCommand({ request: valid }), valid.stdin, staging);
  assertCommandFits(stdin.command, PROVIDER);
  return { cmd: "sh", args: ["-c", stdin.command], ...common, ...(stdin.upload ? { stdinUpload: stdin.upload } : {}) };
}

/**
 * `exec` runs a command to completion (non-zero exits, timeouts and
 * truncation are results); `execStream` yields `started`, output chunks as
 * Vercel streams them, then `exited`. Both on the kit's engine, with a call
 * deadline of the run budget plus `execGraceMs`, so the command's own
 * timeout always fires first.
 */
export const { exec, execStream } = execCommands<VercelContext, CommandPlan, VercelSandbox>({
  plan: (context, request) => planCommand(context.options, request),
  run: (context, plan, { operation, sandboxId, instance, signal, emit }) =>
    runCommandToEnd(vercelCommand(instance, plan, context.options.timeouts.fileMs), {
      provider: PROVIDER,
      timeoutMs: plan.timeoutMs,
      maxOutputBytes: plan.maxOutputBytes,
      signal,
      ...(emit ? { emit } : {}),
      lostOutput: (error) => lostOutput(sandboxId, error, operation),
    }),
});
