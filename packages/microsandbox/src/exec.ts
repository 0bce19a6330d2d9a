import { randomUUID } from "node:crypto";
import {
  EXEC_MARKER_ENV,
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  type OpOptions,
  RESERVED_ENV,
  refuseReservedEnv,
  toSandboxPath,
  validateExecRequest,
} from "@sandport/core";
import { execEventStream, runCommandToEnd } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { ResolvedOptions } from "./options.js";
import { type CommandPlan, microsandboxCommand, runOptions } from "./vendor-command.js";

/** A validated request, before the sandbox (and so its launch environment) is known. */
export type PlannedRequest = Omit<CommandPlan, "env"> & { readonly requestEnv: Readonly<Record<string, string>> };

/**
 * Validates a request and turns it into what agentd takes: a program and its
 * arguments (`argv` as given; a `shell` script as `/bin/sh -c <script>`), an
 * absolute working directory, the environment, stdin and the run budget (the
 * caller's, else the runtime's).
 */
export function planRequest(options: ResolvedOptions, request: ExecRequest): PlannedRequest {
  const valid = validateExecRequest(request, { root: options.workspaceRoot, provider: PROVIDER });
  refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
  const [cmd, ...args] = valid.argv ?? ["/bin/sh", "-c", valid.shell as string];
  const stdin = typeof valid.stdin === "string" ? new TextEncoder().encode(valid.stdin) : valid.stdin;
  return {
    cmd: cmd as string,
    args,
    cwd: toSandboxPath(options.workspaceRoot, valid.cwd),
    requestEnv: valid.env ?? {},
    marker: randomUUID(),
    timeoutMs: valid.timeoutMs ?? options.runBudgetMs,
    maxOutputBytes: valid.maxOutputBytes ?? options.maxOutputBytes,
    stdin,
  };
}

/** The command plan for sandbox `name`: its launch env under the request's, and the marker. */
export function commandPlan(context: MicrosandboxContext, name: string, planned: PlannedRequest): CommandPlan {
  const { requestEnv, ...plan } = planned;
  return { ...plan, env: { ...context.launchEnv(name), ...requestEnv, [EXEC_MARKER_ENV]: plan.marker } };
}

/**
 * Runs a command to completion on the kit's engine; non-zero exits, timeouts
 * and truncation are results. The call's deadline is the command's run budget
 * plus `execGraceMs`, so the command's own kill always comes first.
 */
export function exec(
  context: MicrosandboxContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<ExecResult> {
  return runPlanned(context, handle, request, op, "exec");
}

/** Runs a command and yields `started`, output chunks (exact bytes) as they arrive, then `exited`. */
export function execStream(
  context: MicrosandboxContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): AsyncGenerator<ExecEvent> {
  return execEventStream((emit, stop) => runPlanned(context, handle, request, op, "execStream", stop, emit));
}

async function runPlanned(
  context: MicrosandboxContext,
  handle: unknown,
  request: ExecRequest,
  op: OpOptions | undefined,
  operation: "exec" | "execStream",
  stop?: AbortSignal,
  emit?: (event: ExecEvent) => void,
): Promise<ExecResult> {
  const planned = planRequest(context.options, request);
  const deadlineMs = planned.timeoutMs + context.options.timeouts.execGraceMs;
  return context.onInstance(handle, op, operation, deadlineMs, (sandbox, call, name) => {
    context.known.markCommandRun(name);
    const plan = commandPlan(context, name, planned);
    const signal = stop ? AbortSignal.any([call.signal, stop]) : call.signal;
    return runCommandToEnd(microsandboxCommand(name, sandbox, plan, false), { ...runOptions(plan, signal), emit });
  });
}
