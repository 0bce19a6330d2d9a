import { SandportError } from "../errors/sandport-error.js";
import type { CommandRef, CommandStatus } from "../port/command.js";
import type { ExecRequest } from "../port/exec-request.js";
import type { ExecResult } from "../port/exec-result.js";
import type { OpOptions } from "../port/op-options.js";
import type { StartCommandRequest } from "../port/sandbox-runtime.js";
import type { OutputCollector } from "../streams/output-collector.js";
import { splitStartCommandRequest, validateCommandRef } from "../validation/commands.js";
import type { AdapterContext, ContextOptions } from "./adapter-context.js";
import { type AsyncCommandEnd, asyncCommandLogs, asyncCommandStatus } from "./async-command-result.js";
import type { OperationCall } from "./run-operation.js";

/** The options a context of {@link asyncCommands} reads: the deadline of its calls. */
export interface AsyncCommandOptions extends ContextOptions {
  readonly timeouts: { readonly lookupMs: number };
}

/** One sandbox of an async-command call, reached. */
export interface AsyncCommandSite<Instance> {
  readonly sandboxId: string;
  readonly instance: Instance;
  readonly call: OperationCall;
}

/** What `commandLogs` read of a command: its output so far (in a collector at its own cap) and how it ended. */
export interface AsyncCommandOutput {
  readonly output: OutputCollector;
  readonly end: AsyncCommandEnd | "running";
  /** How long it has run, for a command still `running`. */
  readonly runningForMs: number;
}

/** What {@link asyncCommands} is built from: how the adapter plans, starts and reads an async command. */
export interface AsyncCommandRecipe<Context, Plan, Instance> {
  /** Validates the exec request of session `sessionId` (`INVALID_REQUEST` before any request) into a plan. */
  plan(context: Context, request: ExecRequest, sessionId: string): Plan;
  /** Starts the plan for session `sessionId` (or finds the command the session already has); resolves its id. */
  start(context: Context, plan: Plan, sessionId: string, site: AsyncCommandSite<Instance>): Promise<string>;
  /** How the command stands: `running`, else its end. An unknown command rejects `NOT_FOUND` ({@link unknownCommand}). */
  status(context: Context, ref: CommandRef, site: AsyncCommandSite<Instance>): Promise<AsyncCommandEnd | "running">;
  /** Its output so far and how it stands. */
  logs(context: Context, ref: CommandRef, site: AsyncCommandSite<Instance>): Promise<AsyncCommandOutput>;
}

/** An adapter's `startCommand`, `commandStatus` and `commandLogs`, each taking its context first. */
export interface AsyncCommands<Context> {
  startCommand(context: Context, handle: unknown, request: StartCommandRequest, op?: OpOptions): Promise<CommandRef>;
  commandStatus(context: Context, handle: unknown, ref: CommandRef, op?: OpOptions): Promise<CommandStatus>;
  commandLogs(context: Context, handle: unknown, ref: CommandRef, op?: OpOptions): Promise<ExecResult>;
}

/**
 * `startCommand`, `commandStatus` and `commandLogs` from the vendor's start
 * and reads: the request split and planned (`sessionId` taken out first) or
 * the ref checked before any request, each call on the handle's connected
 * sandbox within `timeouts.lookupMs`, a start marking the sandbox as having
 * run a command, and the results by {@link asyncCommandStatus} and
 * {@link asyncCommandLogs}.
 */
export function asyncCommands<
  Context extends AdapterContext<AsyncCommandOptions, unknown, unknown, Instance>,
  Plan,
  Instance,
>(recipe: AsyncCommandRecipe<Context, Plan, Instance>): AsyncCommands<Context> {
  const onCommand = async <T>(
    context: Context,
    handle: unknown,
    ref: CommandRef,
    op: OpOptions | undefined,
    operation: string,
    read: (ref: CommandRef, site: AsyncCommandSite<Instance>) => Promise<T>,
  ): Promise<T> => {
    const valid = validateCommandRef(ref, context.provider);
    return context.onInstance(handle, op, operation, context.options.timeouts.lookupMs, (instance, call, sandboxId) =>
      read(valid, { sandboxId, instance, call }),
    );
  };
  return {
    startCommand: async (context, handle, request, op) => {
      const { sessionId, execRequest } = splitStartCommandRequest(request, context.provider);
      const plan = recipe.plan(context, execRequest, sessionId);
      const { lookupMs } = context.options.timeouts;
      return context.onInstance(handle, op, "startCommand", lookupMs, async (instance, call, sandboxId) => {
        context.known.markCommandRun(sandboxId);
        return { sessionId, commandId: await recipe.start(context, plan, sessionId, { sandboxId, instance, call }) };
      });
    },
    commandStatus: (context, handle, ref, op) =>
      onCommand(context, handle, ref, op, "commandStatus", async (valid, site) =>
        asyncCommandStatus(await recipe.status(context, valid, site)),
      ),
    commandLogs: (context, handle, ref, op) =>
      onCommand(context, handle, ref, op, "commandLogs", async (valid, site) => {
        const { output, end, runningForMs } = await recipe.logs(context, valid, site);
        return asyncCommandLogs(output, end, runningForMs);
      }),
  };
}

/** `NOT_FOUND` for a command ref the sandbox does not know (`message` says why). */
export function unknownCommand(provider: string, ref: CommandRef, message: string): SandportError {
  return new SandportError({ code: "NOT_FOUND", provider, retryable: false, message, details: { ...ref } });
}
