import { randomUUID } from "node:crypto";
import {
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  type OpOptions,
  refuseReservedEnv,
  toSandboxPath,
  validateExecRequest,
} from "@sandport/core";
import { execEventStream } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { EXEC_MARKER_ENV, RESERVED_ENV } from "./markers.js";
import type { ResolvedOptions } from "./options.js";
import { type CommandPlan, RemoteCommand } from "./remote-command.js";

const encoder = new TextEncoder();

/** A validated request: the command to send and the stdin to write (`undefined`: none). */
export interface PlannedRequest {
  readonly plan: Omit<CommandPlan, "env"> & { readonly requestEnv: Readonly<Record<string, string>> };
  readonly stdin: Uint8Array | undefined;
}

/**
 * Validates a request and turns it into what agentd takes: a program and its
 * arguments (`argv` as given; a `shell` script as `/bin/sh -c <script>`), an
 * absolute working directory, the environment and the run budget (the
 * caller's, else the runtime's).
 */
export function planRequest(options: ResolvedOptions, request: ExecRequest): PlannedRequest {
  const valid = validateExecRequest(request, { root: options.workspaceRoot, provider: PROVIDER });
  refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
  const [cmd, ...args] = valid.argv ?? ["/bin/sh", "-c", valid.shell as string];
  return {
    plan: {
      cmd: cmd as string,
      args,
      cwd: toSandboxPath(options.workspaceRoot, valid.cwd),
      requestEnv: valid.env ?? {},
      marker: randomUUID(),
      timeoutMs: valid.timeoutMs ?? options.runBudgetMs,
      maxOutputBytes: valid.maxOutputBytes ?? options.maxOutputBytes,
    },
    stdin:
      valid.stdin === undefined
        ? undefined
        : typeof valid.stdin === "string"
          ? encoder.encode(valid.stdin)
          : valid.stdin,
  };
}

/** The command plan for sandbox `name`: its launch env under the request's, and the marker. */
export function commandPlan(context: MicrosandboxContext, name: string, planned: PlannedRequest): CommandPlan {
  const { requestEnv, ...plan } = planned.plan;
  return { ...plan, env: { ...context.launchEnv(name), ...requestEnv, [EXEC_MARKER_ENV]: plan.marker } };
}

/**
 * Runs a command to completion; non-zero exits, timeouts and truncation are
 * results. The call's deadline is the command's run budget plus
 * `execGraceMs`, so the command's own kill always comes first.
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
  const deadlineMs = planned.plan.timeoutMs + context.options.timeouts.execGraceMs;
  return context.onSandbox(handle, op, operation, deadlineMs, async (sandbox, call, name) => {
    const signal = stop ? AbortSignal.any([call.signal, stop]) : call.signal;
    if (signal.aborted) throw signal.reason;
    context.setPristine(name, false);
    const command = await RemoteCommand.start(sandbox, name, commandPlan(context, name, planned), emit);
    const onAbort = () => void command.kill("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    try {
      // Stdin the command never reads is harmless: a write that fails because it exited is not an error.
      if (planned.stdin && planned.stdin.length > 0) await command.write(planned.stdin).catch(() => undefined);
      await command.closeStdin().catch(() => undefined);
      const result = await command.result;
      if (signal.aborted) throw signal.reason;
      return result;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  });
}
