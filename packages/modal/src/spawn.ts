import {
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  invalidRequest,
  type OpOptions,
  type SandboxProcess,
} from "@sandport/core";
import { EventQueue } from "@sandport/core/adapter";
import { type CommandPlan, CommandRun } from "./command-run.js";
import type { ModalContext } from "./context.js";
import { planCommand } from "./exec.js";
import { PROVIDER } from "./handle.js";

/**
 * Starts a command whose stdin stays open and resolves once Modal accepted
 * it (see `SandboxProcess`). Its run budget is the request's `timeoutMs`,
 * else `runBudgetMs`; `op.timeoutMs` bounds only the start (`launchMs` by
 * default); aborting `op.signal`, before or after the start, kills it.
 * A `request.stdin` is written first; stdin then stays open for `write`.
 */
export function spawn(
  context: ModalContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<SandboxProcess> {
  let plan: CommandPlan;
  try {
    plan = planCommand(context.options, request, true);
  } catch (error) {
    return Promise.reject(error);
  }
  return context.onSandbox(handle, op, "spawn", context.options.timeouts.launchMs, async (sandbox, call, sandboxId) => {
    context.markCommandRun(sandboxId);
    const process = new ModalProcess();
    const signal = op?.signal ? AbortSignal.any([call.signal, op.signal]) : call.signal;
    const run = await CommandRun.start(sandbox, plan, { emit: (event) => process.push(event) });
    process.attach(run);
    // Aborting the caller's signal after the start kills the command too (the start's deadline does not).
    const onAbort = () => void run.kill("aborted");
    if (signal.aborted) onAbort();
    else if (op?.signal) {
      const caller = op.signal;
      caller.addEventListener("abort", onAbort, { once: true });
      void run.result.finally(() => caller.removeEventListener("abort", onAbort)).catch(() => undefined);
    }
    return process;
  });
}

/** A command started with `spawn`: its events, its result, and its stdin. */
class ModalProcess implements SandboxProcess {
  readonly result: Promise<ExecResult>;
  readonly #queue = new EventQueue<ExecEvent>();
  #run: CommandRun | undefined;
  #settle: { resolve: (result: ExecResult) => void; reject: (error: unknown) => void } | undefined;
  #iterated = false;

  constructor() {
    this.result = new Promise<ExecResult>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // A caller that only reads events must not see an unhandled rejection.
    this.result.catch(() => undefined);
  }

  /** See `SandboxProcess.events`: one consumer. */
  get events(): AsyncIterable<ExecEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        if (this.#iterated) throw invalidRequest("a process's events can be iterated once", {}, PROVIDER);
        this.#iterated = true;
        return this.#queue[Symbol.asyncIterator]();
      },
    };
  }

  /** Queues an event of the run (`started`, output). */
  push(event: ExecEvent): void {
    this.#queue.push(event);
  }

  /** The run this process stands for; its end ends the events and settles `result`. */
  attach(run: CommandRun): void {
    this.#run = run;
    run.result.then(
      (result) => {
        this.#queue.push({ type: "exited", result });
        this.#queue.end();
        this.#settle?.resolve(result);
      },
      (error: unknown) => {
        this.#queue.fail(error);
        this.#settle?.reject(error);
      },
    );
  }

  /** See `SandboxProcess.write`. */
  write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      return Promise.reject(invalidRequest("stdin data must be a string or Uint8Array", {}, PROVIDER));
    }
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    return (this.#run as CommandRun).write(bytes);
  }

  /** See `SandboxProcess.closeStdin`. */
  closeStdin(): Promise<void> {
    return (this.#run as CommandRun).closeStdin();
  }

  /** See `SandboxProcess.kill`. */
  kill(): Promise<void> {
    return (this.#run as CommandRun).kill("killed");
  }
}
