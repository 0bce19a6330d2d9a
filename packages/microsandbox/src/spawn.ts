import {
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  invalidRequest,
  type OpOptions,
  type SandboxProcess,
} from "@sandport/core";
import { EventQueue, processExited } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { commandPlan, planRequest } from "./exec.js";
import { PROVIDER } from "./handle.js";
import { RemoteCommand } from "./remote-command.js";

const encoder = new TextEncoder();

/**
 * Starts a command whose stdin stays open (one agent connection, stdin a
 * pipe) and resolves once it runs. The request's `timeoutMs` (else the run
 * budget) bounds the run; `op.timeoutMs` bounds only the start; aborting
 * `op.signal` at any time kills it, as does `kill()` or `destroy`. Stdin the
 * request carries is written first.
 */
export async function spawn(
  context: MicrosandboxContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<SandboxProcess> {
  const planned = planRequest(context.options, request);
  const operation = "spawn";
  return context.onSandbox(handle, op, operation, "lookupMs", async (sandbox, call, name) => {
    if (call.signal.aborted) throw call.signal.reason;
    context.setPristine(name, false);
    const queue = new EventQueue<ExecEvent>();
    const command = await RemoteCommand.start(sandbox, name, commandPlan(context, name, planned), (event) =>
      queue.push(event),
    );
    const process = new MicrosandboxProcess(command, queue);
    // The start's deadline has passed (or the caller gave up) while the command came up: it must not run on.
    if (call.signal.aborted) {
      await process.kill();
      throw call.signal.reason;
    }
    if (op?.signal) {
      const signal = op.signal;
      const onAbort = () => void process.kill();
      signal.addEventListener("abort", onAbort, { once: true });
      command.result.finally(() => signal.removeEventListener("abort", onAbort)).catch(() => undefined);
    }
    if (planned.stdin && planned.stdin.length > 0) await command.write(planned.stdin).catch(() => undefined);
    return process;
  });
}

/** A command started with `spawn`: its events, its stdin, its end. See `SandboxProcess`. */
class MicrosandboxProcess implements SandboxProcess {
  readonly result: Promise<ExecResult>;
  readonly #command: RemoteCommand;
  readonly #queue: EventQueue<ExecEvent>;
  #iterated = false;
  #stdinClosed = false;

  constructor(command: RemoteCommand, queue: EventQueue<ExecEvent>) {
    this.#command = command;
    this.#queue = queue;
    this.result = command.result.then(
      (result) => {
        queue.push({ type: "exited", result });
        queue.end();
        return result;
      },
      (error: unknown) => {
        queue.fail(error);
        throw error;
      },
    );
    // A caller that only reads events must not see an unhandled rejection.
    this.result.catch(() => {});
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

  /** See `SandboxProcess.write`: `INVALID_REQUEST` after `closeStdin`, `NOT_FOUND` once the command has ended. */
  async write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      throw invalidRequest("stdin data must be a string or Uint8Array", {}, PROVIDER);
    }
    if (this.#stdinClosed) throw invalidRequest("stdin was closed", {}, PROVIDER);
    if (this.#command.ended) throw processExited(PROVIDER);
    try {
      await this.#command.write(typeof data === "string" ? encoder.encode(data) : data);
    } catch (error) {
      if (this.#command.ended) throw processExited(PROVIDER, error);
      throw error;
    }
  }

  /** See `SandboxProcess.closeStdin`: idempotent, also after the command has ended. */
  async closeStdin(): Promise<void> {
    if (this.#stdinClosed) return;
    this.#stdinClosed = true;
    if (this.#command.ended) return;
    await this.#command.closeStdin().catch((error: unknown) => {
      if (!this.#command.ended) throw error;
    });
  }

  /** See `SandboxProcess.kill`: idempotent; the result then reports `exitCode: null`. */
  async kill(): Promise<void> {
    await this.#command.kill("killed");
  }
}
