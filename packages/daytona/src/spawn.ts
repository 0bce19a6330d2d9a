import {
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  invalidRequest,
  type OpOptions,
  type SandboxProcess,
} from "@sandport/core";
import { EventQueue } from "@sandport/core/adapter";
import type { DaytonaContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { planSession, SessionRun } from "./session-run.js";

const encoder = new TextEncoder();

/**
 * Starts a command whose stdin stays open, in its own Daytona session, and
 * resolves once it runs. Daytona's session input has no end of file, so the
 * command reads its stdin from a relay in the sandbox that decodes what
 * `write` sends (base64 lines, through `sendSessionCommandInput`, never
 * echoed into the output) and closes the command's stdin on `closeStdin`.
 * `op.timeoutMs` bounds the start; the request's `timeoutMs` (else
 * `runBudgetMs`) the run; aborting `op.signal` at any time kills it.
 */
export async function spawn(
  context: DaytonaContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<SandboxProcess> {
  const plan = planSession(context, request, true);
  const process = await context.onSandbox(
    handle,
    op,
    "spawn",
    context.options.timeouts.lookupMs,
    async (sandbox, call, sandboxId) => {
      context.known.markCommandRun(sandboxId);
      return new DaytonaProcess(await SessionRun.start(context, sandbox, sandboxId, plan, call));
    },
  );
  const caller = op?.signal;
  if (caller?.aborted) void process.kill();
  else caller?.addEventListener("abort", () => void process.kill(), { once: true });
  if (plan.initialInput !== undefined) await process.write(plan.initialInput);
  return process;
}

/** A command started by `spawn`: its events, its result, its stdin and its kill (see `SandboxProcess`). */
class DaytonaProcess implements SandboxProcess {
  readonly result: Promise<ExecResult>;
  readonly #run: SessionRun;
  readonly #queue = new EventQueue<ExecEvent>();
  #stdinClosed = false;
  #iterated = false;

  constructor(run: SessionRun) {
    this.#run = run;
    this.#queue.push({ type: "started" });
    this.result = run.follow((event) => this.#queue.push(event));
    this.result.then(
      (result) => {
        this.#queue.push({ type: "exited", result });
        this.#queue.end();
      },
      (error: unknown) => this.#queue.fail(error),
    );
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

  /** See `SandboxProcess.write`. */
  write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      return Promise.reject(invalidRequest("stdin data must be a string or Uint8Array", {}, PROVIDER));
    }
    if (this.#stdinClosed) return Promise.reject(invalidRequest("stdin was closed", {}, PROVIDER));
    return this.#run.input(typeof data === "string" ? encoder.encode(data) : data);
  }

  /** See `SandboxProcess.closeStdin`: idempotent, also after the command has exited. */
  async closeStdin(): Promise<void> {
    if (this.#stdinClosed) return;
    this.#stdinClosed = true;
    if (this.#run.ended) return;
    await this.#run.closeInput().catch(() => undefined);
  }

  /** See `SandboxProcess.kill`: idempotent. */
  kill(): Promise<void> {
    return this.#run.kill();
  }
}
