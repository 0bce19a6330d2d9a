import { randomUUID } from "node:crypto";
import {
  EXEC_MARKER_ENV,
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  invalidRequest,
  type OpOptions,
  RESERVED_ENV,
  refuseReservedEnv,
  toSandboxPath,
  validateExecRequest,
} from "@sandport/core";
import { execEventStream, runCommandToEnd } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { PROVIDER } from "./handle.js";
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
  const valid = validateExecRequest(request, { root: options.workspaceRoot, provider: PROVIDER });
  refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
  const argv = valid.argv ? [...valid.argv] : ["sh", "-c", valid.shell as string];
  if (argv.reduce((total, arg) => total + arg.length, 0) > MAX_ARGV_CHARS) {
    throw invalidRequest(
      `the command's arguments total more than ${MAX_ARGV_CHARS} characters, the most Modal takes`,
      { limit: MAX_ARGV_CHARS },
      PROVIDER,
    );
  }
  const marker = randomUUID();
  const stdin = typeof valid.stdin === "string" ? new TextEncoder().encode(valid.stdin) : valid.stdin;
  return {
    argv,
    cwd: toSandboxPath(options.workspaceRoot, valid.cwd),
    env: { ...valid.env, [EXEC_MARKER_ENV]: marker },
    marker,
    timeoutMs: valid.timeoutMs ?? options.runBudgetMs,
    maxOutputBytes: valid.maxOutputBytes ?? options.maxOutputBytes,
    ...(stdin === undefined ? {} : { stdin }),
    interactive,
  };
}

/**
 * Runs a command to completion on the kit's engine; non-zero exits, timeouts
 * and truncation are results. The call's deadline is the command's run budget
 * plus `execGraceMs`, so the command's own timeout always comes first.
 */
export function exec(
  context: ModalContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<ExecResult> {
  return runPlanned(context, handle, request, op, "exec");
}

/** Runs a command and yields `started`, output chunks (exact bytes) as they arrive, then `exited`. */
export function execStream(
  context: ModalContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): AsyncGenerator<ExecEvent> {
  return execEventStream((emit, stop) => runPlanned(context, handle, request, op, "execStream", stop, emit));
}

async function runPlanned(
  context: ModalContext,
  handle: unknown,
  request: ExecRequest,
  op: OpOptions | undefined,
  operation: "exec" | "execStream",
  stop?: AbortSignal,
  emit?: (event: ExecEvent) => void,
): Promise<ExecResult> {
  const plan = planCommand(context.options, request, false);
  const deadlineMs = plan.timeoutMs + context.options.timeouts.execGraceMs;
  return context.onInstance(handle, op, operation, deadlineMs, (sandbox, call, sandboxId) => {
    context.known.markCommandRun(sandboxId);
    const signal = stop ? AbortSignal.any([call.signal, stop]) : call.signal;
    return runCommandToEnd(modalCommand(sandbox, plan), commandOptions(plan, sandboxId, signal, emit));
  });
}
