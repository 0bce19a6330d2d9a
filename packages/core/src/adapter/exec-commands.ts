import type { ExecEvent } from "../port/exec-event.js";
import type { ExecRequest } from "../port/exec-request.js";
import type { ExecResult } from "../port/exec-result.js";
import type { OpOptions } from "../port/op-options.js";
import { execEventStream } from "../streams/exec-event-stream.js";
import type { AdapterContext, ContextOptions } from "./adapter-context.js";
import type { OperationCall } from "./run-operation.js";

/** The options a context of {@link execCommands} reads: the margin a call's deadline leaves its command. */
export interface ExecOptions extends ContextOptions {
  readonly timeouts: { readonly execGraceMs: number };
}

/** One run of `exec` or `execStream`, on a reached sandbox. */
export interface ExecRun<Instance> {
  readonly operation: "exec" | "execStream";
  readonly sandboxId: string;
  /** Its connected instance; `undefined` where the recipe said `connect: false`. */
  readonly instance: Instance;
  readonly call: OperationCall;
  /** The call's signal, joined (for `execStream`) with the consumer leaving the loop: the command's kill. */
  readonly signal: AbortSignal;
  /** Where `execStream`'s events go (`started`, output); absent for `exec`. */
  readonly emit?: (event: ExecEvent) => void;
}

/** What {@link execCommands} is built from: how the adapter plans a request and runs the plan. */
export interface ExecRecipe<Context, Plan extends { readonly timeoutMs: number }, Instance> {
  /** Validates the request (`INVALID_REQUEST` before any request) into a plan with its run budget. */
  plan(context: Context, request: ExecRequest, operation: "exec" | "execStream"): Plan;
  /** Runs the plan to its result, on the kit's engine (`runCommandToEnd`). */
  run(context: Context, plan: Plan, run: ExecRun<Instance>): Promise<ExecResult>;
  /** `false` for an adapter whose SDK has no per-sandbox instance: ownership is checked, nothing connected. */
  readonly connect?: boolean;
}

/** An adapter's `exec` and `execStream`, each taking its context first. */
export interface ExecCommands<Context> {
  exec(context: Context, handle: unknown, request: ExecRequest, op?: OpOptions): Promise<ExecResult>;
  execStream(context: Context, handle: unknown, request: ExecRequest, op?: OpOptions): AsyncGenerator<ExecEvent>;
}

/**
 * `exec` and `execStream` from one planned run: the request planned, the call
 * run on the handle's owned sandbox with a deadline of the plan's run budget
 * plus `timeouts.execGraceMs` (so the command's own kill always comes first),
 * the sandbox marked as having run a command, then the recipe's `run`.
 * `execStream` is `execEventStream` over the same run: its events, then
 * `exited`; leaving the loop aborts the run's signal.
 */
export function execCommands<
  Context extends AdapterContext<ExecOptions, unknown, unknown, Instance>,
  Plan extends { readonly timeoutMs: number },
  Instance,
>(recipe: ExecRecipe<Context, Plan, Instance>): ExecCommands<Context> {
  const runPlanned = async (
    context: Context,
    handle: unknown,
    request: ExecRequest,
    op: OpOptions | undefined,
    operation: "exec" | "execStream",
    stop?: AbortSignal,
    emit?: (event: ExecEvent) => void,
  ): Promise<ExecResult> => {
    const plan = recipe.plan(context, request, operation);
    const deadlineMs = plan.timeoutMs + context.options.timeouts.execGraceMs;
    return context.onHandle(handle, op, operation, deadlineMs, async (sandboxId, call) => {
      let instance: Instance;
      if (recipe.connect === false) {
        await context.assertOwned(sandboxId, operation, call);
        instance = undefined as Instance;
      } else {
        instance = await context.instance(sandboxId, operation, call);
      }
      context.known.markCommandRun(sandboxId);
      const signal = stop ? AbortSignal.any([call.signal, stop]) : call.signal;
      return recipe.run(context, plan, { operation, sandboxId, instance, call, signal, ...(emit ? { emit } : {}) });
    });
  };
  return {
    exec: (context, handle, request, op) => runPlanned(context, handle, request, op, "exec"),
    execStream: (context, handle, request, op) =>
      execEventStream((emit, stop) => runPlanned(context, handle, request, op, "execStream", stop, emit)),
  };
}
