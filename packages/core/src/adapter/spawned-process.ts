import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { ExecEvent } from "../port/exec-event.js";
import type { ExecRequest } from "../port/exec-request.js";
import type { ExecResult } from "../port/exec-result.js";
import type { OpOptions } from "../port/op-options.js";
import type { SandboxProcess } from "../port/sandbox-process.js";
import { EventQueue } from "../streams/event-queue.js";
import type { AdapterContext, ContextOptions } from "./adapter-context.js";
import type { CommandRun, CommandRunOptions, VendorCommand } from "./command-engine.js";
import { startCommandRun } from "./command-engine.js";
import type { OperationCall } from "./run-operation.js";
import { processExited } from "./sandbox-errors.js";

/**
 * How a spawned command's stdin reaches the vendor: one request per call.
 * Each may reject `NOT_FOUND` once the process is gone (read as "exited").
 */
export interface VendorStdin {
  /** Sends bytes (or text) to the process's stdin. */
  write(data: string | Uint8Array): Promise<void>;
  /** Closes its stdin; reject `UNSUPPORTED` where the vendor cannot. */
  close(): Promise<void>;
}

/** A vendor command that holds the stdin of the process it starts (one command per start). */
export interface StdinCommand extends VendorCommand {
  /** Writes and closes the started process's stdin; `NOT_FOUND` once it has ended. */
  readonly stdin: VendorStdin;
}

/**
 * A `SandboxProcess` over a run of the command engine: events queued for one
 * reader and `exited` last, writes and the close sent in call order, a write
 * after `closeStdin` refused (`INVALID_REQUEST`), one after exit `NOT_FOUND`,
 * `closeStdin` idempotent (also after exit), `kill` of an exited process a
 * no-op, and the caller's `op.signal` killing it. Built by {@link spawnCommand}.
 */
export class SpawnedProcess implements SandboxProcess {
  /** See `SandboxProcess.result`. */
  readonly result: Promise<ExecResult>;
  readonly #provider: string;
  readonly #run: CommandRun;
  readonly #queue: EventQueue<ExecEvent>;
  readonly #stdin: VendorStdin;
  #pending: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;
  #exited = false;
  #iterated = false;

  /**
   * @param run the started command
   * @param queue where the run's events went; `exited` (or the failure) is added here
   * @param signal the caller's `op.signal`: aborting it kills the command
   */
  constructor(
    provider: string,
    run: CommandRun,
    queue: EventQueue<ExecEvent>,
    stdin: VendorStdin,
    signal: AbortSignal | undefined,
  ) {
    this.#provider = provider;
    this.#run = run;
    this.#queue = queue;
    this.#stdin = stdin;
    const onAbort = () => void this.kill().catch(() => {});
    signal?.addEventListener("abort", onAbort, { once: true });
    this.result = run.finished.then(
      (result) => {
        this.#exited = true;
        queue.push({ type: "exited", result });
        queue.end();
        return result;
      },
      (error: unknown) => {
        this.#exited = true;
        queue.fail(error);
        throw error;
      },
    );
    this.result.catch(() => {}).finally(() => signal?.removeEventListener("abort", onAbort));
    if (signal?.aborted) onAbort();
  }

  /** The vendor's process id. */
  get pid(): number | string {
    return this.#run.pid;
  }

  /** See `SandboxProcess.events`: one consumer; a second iteration is `INVALID_REQUEST`. */
  get events(): AsyncIterable<ExecEvent> {
    return { [Symbol.asyncIterator]: () => this.#consume() };
  }

  /** See `SandboxProcess.write`. */
  write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      const refusal = invalidRequest("stdin data must be a string or Uint8Array", { field: "data" }, this.#provider);
      return Promise.reject(refusal);
    }
    if (this.#closing) return Promise.reject(invalidRequest("stdin was closed", {}, this.#provider));
    if (this.#exited) return Promise.reject(processExited(this.#provider));
    return this.#inOrder(() => this.#stdin.write(data));
  }

  /** See `SandboxProcess.closeStdin`: a failed close leaves stdin open for another try. */
  closeStdin(): Promise<void> {
    if (this.#closing) return this.#closing;
    if (this.#exited) {
      // Nothing to send once it exited; still closed, so a later write is refused as after any close.
      this.#closing = Promise.resolve();
      return this.#closing;
    }
    const closing = this.#inOrder(() => this.#stdin.close()).catch((error: unknown) => {
      // Closing an exited command's stdin is done.
      if (SandportError.hasCode(error, "NOT_FOUND")) return;
      if (this.#closing === closing) this.#closing = undefined;
      throw error;
    });
    this.#closing = closing;
    return closing;
  }

  /** See `SandboxProcess.kill`: the command and every process it started. */
  async kill(): Promise<void> {
    if (this.#exited) return;
    await this.#run.kill();
  }

  #consume(): AsyncIterator<ExecEvent> {
    if (this.#iterated) throw invalidRequest("a process's events can be iterated once", {}, this.#provider);
    this.#iterated = true;
    return this.#queue[Symbol.asyncIterator]();
  }

  /** Runs one stdin request after those called before it; `NOT_FOUND` once the command has exited. */
  #inOrder(send: () => Promise<void>): Promise<void> {
    const task = async () => {
      if (this.#exited) throw processExited(this.#provider);
      try {
        await send();
      } catch (error) {
        if (SandportError.hasCode(error, "NOT_FOUND")) throw processExited(this.#provider, error);
        throw error;
      }
    };
    const next = this.#pending.then(task);
    this.#pending = next.catch(() => {});
    return next;
  }
}

/** What {@link spawnCommand} needs besides the engine's options (whose `emit` it supplies). */
export interface SpawnOptions extends Omit<CommandRunOptions, "emit"> {
  /** The vendor's stdin requests for the started process (its pid). */
  readonly stdin: (pid: number | string) => VendorStdin;
  /** The caller's `op.signal`: aborting it kills the command, before or after the start. */
  readonly callerSignal?: AbortSignal;
  /** The request's `stdin`, written first (lost, as on a pipe, when the command already ended). */
  readonly firstWrite?: string | Uint8Array;
}

/**
 * Starts a command whose stdin stays open and resolves once it runs, after
 * the first write: `spawn` of every adapter. `options.signal` bounds only the
 * start; when it fires as the start returns, or the first write fails (other
 * than because the command already ended), the process is killed and the
 * call rejects (nobody would hold it).
 */
export async function spawnCommand(vendor: VendorCommand, options: SpawnOptions): Promise<SpawnedProcess> {
  const queue = new EventQueue<ExecEvent>();
  const run = await startCommandRun(vendor, { ...options, emit: (event) => queue.push(event) });
  const process = new SpawnedProcess(options.provider, run, queue, options.stdin(run.pid), options.callerSignal);
  if (options.signal.aborted) {
    await process.kill().catch(() => {});
    throw options.signal.reason;
  }
  if (options.firstWrite !== undefined) {
    await process.write(options.firstWrite).catch(async (error: unknown) => {
      if (SandportError.hasCode(error, "NOT_FOUND")) return;
      // The caller gets no process to kill: a command whose first write failed must not go on running.
      await process.kill().catch(() => {});
      throw error;
    });
  }
  return process;
}

/** One sandbox of a `spawn` call, reached. */
export interface SpawnSite<Instance> {
  readonly sandboxId: string;
  readonly instance: Instance;
  readonly call: OperationCall;
}

/** How one planned spawn runs: its vendor command, and what {@link spawnCommand} takes besides the call's signals. */
export interface SpawnStart extends Omit<SpawnOptions, "provider" | "signal" | "callerSignal" | "stdin"> {
  readonly command: VendorCommand;
  /** The started process's stdin; default: the command's own (a {@link StdinCommand}'s). */
  readonly stdin?: (pid: number | string) => VendorStdin;
}

/** What {@link spawnCommands} is built from: how the adapter plans a request and starts the plan. */
export interface SpawnRecipe<Context, Plan, Instance> {
  /** Validates the request (`INVALID_REQUEST` before any request) into a plan whose stdin stays open. */
  plan(context: Context, request: ExecRequest): Plan;
  /** The start's deadline when `op.timeoutMs` sets none. */
  startTimeoutMs(context: Context): number;
  /** The vendor command of the plan on the reached sandbox, with its run budget, output cap and first write. */
  start(context: Context, plan: Plan, site: SpawnSite<Instance>): SpawnStart;
}

/**
 * An adapter's `spawn` (taking its context first): the request planned before
 * any request, the call on the handle's connected sandbox (its deadline bounds
 * only the start), the sandbox marked as having run a command, then
 * {@link spawnCommand} with `op.signal` killing the command at any time.
 */
export function spawnCommands<
  Context extends AdapterContext<ContextOptions, unknown, unknown, Instance>,
  Plan,
  Instance,
>(
  recipe: SpawnRecipe<Context, Plan, Instance>,
): { spawn(context: Context, handle: unknown, request: ExecRequest, op?: OpOptions): Promise<SandboxProcess> } {
  return {
    spawn: async (context, handle, request, op) => {
      const plan = recipe.plan(context, request);
      const startMs = recipe.startTimeoutMs(context);
      return context.onInstance(handle, op, "spawn", startMs, (instance, call, sandboxId) => {
        context.known.markCommandRun(sandboxId);
        const { command, stdin, ...options } = recipe.start(context, plan, { sandboxId, instance, call });
        return spawnCommand(command, {
          provider: context.provider,
          ...options,
          // The call's signal bounds the start only: once the command runs, op.signal and kill() stop it.
          signal: call.signal,
          stdin: stdin ?? (() => (command as StdinCommand).stdin),
          ...(op?.signal ? { callerSignal: op.signal } : {}),
        });
      });
    },
  };
}
