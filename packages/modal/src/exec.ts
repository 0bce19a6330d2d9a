import { type ExecRequest, invalidRequest } from "@sandport/core";
import { execCommands, runCommandToEnd, validCommand } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { ModalSandbox } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { type CommandPlan, commandOptions, modalCommand } from "./vendor-command.js";

/** Most characters the SDK lets a command's arguments total (its `ARG_MAX` check). */
const MAX_ARGV_CHARS = 65_536;

/**
 * Validates a request and turns it into what Modal takes: an argument vector
 * (a `shell` script runs as `sh -c <script>`), an absolute workdir, an env
 * carrying the command's kill marker, and the run budget (the caller's
 * `timeoutMs`, else `runBudgetMs`). Throws `INVALID_REQUEST` before any request.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest, interactive: boolean): CommandPlan {
  const { valid, ...common } = validCommand(options, request, PROVIDER);
  const argv = valid.argv ? [...valid.argv] : ["sh", "-c", valid.shell as string];
  if (argv.reduce((total, arg) => total + arg.length, 0) > MAX_ARGV_CHARS) {
    throw invalidRequest(
      `the command's arguments total more than ${MAX_ARGV_CHARS} characters, the most Modal takes`,
      { limit: MAX_ARGV_CHARS },
      PROVIDER,
    );
  }
  const stdin = typeof valid.stdin === "string" ? new TextEncoder().encode(valid.stdin) : valid.stdin;
  return {
    argv,
    ...common,
    ...(stdin === undefined ? {} : { stdin }),
    interactive,
  };
}

/**
 * `exec` runs a command to completion (non-zero exits, timeouts and
 * truncation are results); `execStream` yields `started`, output chunks
 * (exact bytes) as they arrive, then `exited`. Both on the kit's engine, with
 * a call deadline of the run budget plus `execGraceMs`, so the command's own
 * timeout always comes first.
 */
export const { exec, execStream } = execCommands<ModalContext, CommandPlan, ModalSandbox>({
  plan: (context, request) => planCommand(context.options, request, false),
  run: (_context, plan, { sandboxId, instance, signal, emit }) =>
    runCommandToEnd(modalCommand(instance, plan), {
      ...commandOptions(plan, sandboxId),
      signal,
      ...(emit ? { emit } : {}),
    }),
});
