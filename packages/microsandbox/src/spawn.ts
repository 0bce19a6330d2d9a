import { spawnCommands } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { commandPlan, type PlannedRequest, planRequest } from "./exec.js";
import type { MsbSandbox } from "./internal/sdk-types.js";
import { microsandboxCommand, runOptions } from "./vendor-command.js";

/**
 * Starts a command whose stdin stays open (one agent connection, stdin a
 * pipe) and resolves once it runs, after writing the request's `stdin`, if
 * any (`spawnCommands`). The request's `timeoutMs` (else the run budget)
 * bounds the run; `op.timeoutMs` bounds only the start; aborting `op.signal`
 * at any time kills it, as does `kill()` or `destroy`.
 */
export const { spawn } = spawnCommands<MicrosandboxContext, PlannedRequest, MsbSandbox>({
  plan: (context, request) => planRequest(context.options, request),
  startTimeoutMs: (context) => context.options.timeouts.lookupMs,
  start: (context, planned, { sandboxId: name, instance, call }) => {
    const plan = { ...commandPlan(context, name, planned), stdin: undefined };
    return {
      command: microsandboxCommand(name, instance, plan, true),
      ...runOptions(plan, call.signal),
      ...(planned.stdin !== undefined ? { firstWrite: planned.stdin } : {}),
    };
  },
});
