import type { ExecRequest } from "@sandport/core";
import { execCommands, runCommandToEnd, validCommand } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { MsbSandbox } from "./internal/sdk-types.js";
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
  const { valid, env, ...common } = validCommand(options, request, PROVIDER);
  const [cmd, ...args] = valid.argv ?? ["/bin/sh", "-c", valid.shell as string];
  const stdin = typeof valid.stdin === "string" ? new TextEncoder().encode(valid.stdin) : valid.stdin;
  return { cmd: cmd as string, args, ...common, requestEnv: env, stdin };
}

/** The command plan for sandbox `name`: its launch env under the request's (which carries the marker). */
export function commandPlan(context: MicrosandboxContext, name: string, planned: PlannedRequest): CommandPlan {
  const { requestEnv, ...plan } = planned;
  return { ...plan, env: { ...context.launchEnv(name), ...requestEnv } };
}

/**
 * `exec` runs a command to completion (non-zero exits, timeouts and
 * truncation are results); `execStream` yields `started`, output chunks
 * (exact bytes) as they arrive, then `exited`. Both on the kit's engine, with
 * a call deadline of the run budget plus `execGraceMs`, so the command's own
 * kill always comes first.
 */
export const { exec, execStream } = execCommands<MicrosandboxContext, PlannedRequest, MsbSandbox>({
  plan: (context, request) => planRequest(context.options, request),
  run: (context, planned, { sandboxId, instance, signal, emit }) => {
    const plan = commandPlan(context, sandboxId, planned);
    return runCommandToEnd(microsandboxCommand(sandboxId, instance, plan, false), {
      ...runOptions(plan, signal),
      emit,
    });
  },
});
