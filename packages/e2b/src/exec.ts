import { randomUUID } from "node:crypto";
import {
  composeShellCommand,
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  type OpOptions,
  refuseReservedEnv,
  toSandboxPath,
  validateExecRequest,
} from "@sandport/core";
import { assertCommandFits, execEventStream, planStdin } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { EXEC_MARKER_ENV, RESERVED_ENV } from "./markers.js";
import type { ResolvedOptions } from "./options.js";
import { type CommandPlan, runCommand } from "./run-command.js";

/**
 * Validates a request and turns it into what E2B takes: one command string.
 * `argv` is quoted with POSIX single quotes and `exec`ed; a `shell` script runs
 * in its own `sh -c`. Stdin is embedded, or staged as a file above 64 KiB
 * (`planStdin`); with `openStdin` (spawn) it is kept for the first write to
 * the command's own stdin instead. The timeout is the caller's, else the run budget.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest, openStdin = false): CommandPlan {
  const valid = validateExecRequest(request, { root: options.workspaceRoot, provider: PROVIDER });
  refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
  const cwd = toSandboxPath(options.workspaceRoot, valid.cwd);
  const staging = { cwd, scratchDirectory: options.scratchDirectory, name: randomUUID() };
  const stdin = planStdin(composeShellCommand({ request: valid }), openStdin ? undefined : valid.stdin, staging);
  assertCommandFits(stdin.command, PROVIDER);
  const marker = randomUUID();
  return {
    command: stdin.command,
    cwd,
    env: { ...valid.env, [EXEC_MARKER_ENV]: marker },
    marker,
    timeoutMs: valid.timeoutMs ?? options.runBudgetMs,
    maxOutputBytes: valid.maxOutputBytes ?? options.maxOutputBytes,
    ...(stdin.upload ? { stdinUpload: stdin.upload } : {}),
    ...(openStdin && valid.stdin !== undefined ? { firstWrite: valid.stdin } : {}),
  };
}

/**
 * Runs a command to completion; non-zero exits, timeouts and truncation are
 * results. The call's deadline is the command's run budget plus `execGraceMs`,
 * so the command's own kill always comes first.
 */
export function exec(context: E2BContext, handle: unknown, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
  return runPlanned(context, handle, request, op, "exec");
}

/** Runs a command and yields `started`, output chunks as they arrive, then `exited`. */
export function execStream(
  context: E2BContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): AsyncGenerator<ExecEvent> {
  return execEventStream((emit, stop) => runPlanned(context, handle, request, op, "execStream", stop, emit));
}

async function runPlanned(
  context: E2BContext,
  handle: unknown,
  request: ExecRequest,
  op: OpOptions | undefined,
  operation: "exec" | "execStream",
  stop?: AbortSignal,
  emit?: (event: ExecEvent) => void,
): Promise<ExecResult> {
  const plan = planCommand(context.options, request);
  const deadlineMs = plan.timeoutMs + context.options.timeouts.execGraceMs;
  return context.onInstance(handle, op, operation, deadlineMs, (sandbox, call, sandboxId) => {
    context.known.markCommandRun(sandboxId);
    const signal = stop ? AbortSignal.any([call.signal, stop]) : call.signal;
    return runCommand(context, sandboxId, sandbox, plan, signal, emit);
  });
}
