import { type ExecEvent, type ExecResult, invalidRequest, type SandboxProcess, SandportError } from "@sandport/core";
import { type EventQueue, errorName, processExited } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import type { CommandRun } from "./run-command.js";

/** Decodes stdin bytes for SDKs that send text only; keeps a byte-order mark as a character. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A command started with `E2BRuntime.spawn`. Its events and result come from
 * the run (`startRun`); `write` and `closeStdin` are envd's `SendInput` and
 * `CloseStdin` through the SDK (`commands.sendStdin`, `commands.closeStdin`),
 * one request each, in the order they were called; `kill` is the runtime's
 * kill of the whole process tree.
 *
 * Output is queued for `events` until read and kept for `result`, both within
 * the command's `maxOutputBytes`: past it the command is killed.
 */
export class E2BProcess implements SandboxProcess {
  /** See `SandboxProcess.result`. */
  readonly result: Promise<ExecResult>;
  readonly #context: E2BContext;
  readonly #sandbox: E2BSandbox;
  readonly #sandboxId: string;
  readonly #run: CommandRun;
  readonly #queue: EventQueue<ExecEvent>;
  /** Writes and the close, one after another: envd gets them in call order. */
  #stdin: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;
  #exited = false;
  #iterated = false;

  /**
   * @param run the started command
   * @param queue where `startRun` puts its events; `exited` (or the failure) is added here
   * @param signal the caller's `op.signal`: aborting it kills the command
   */
  constructor(
    context: E2BContext,
    sandbox: E2BSandbox,
    run: CommandRun,
    queue: EventQueue<ExecEvent>,
    signal: AbortSignal | undefined,
  ) {
    this.#context = context;
    this.#sandbox = sandbox;
    this.#sandboxId = sandbox.sandboxId;
    this.#run = run;
    this.#queue = queue;
    const onAbort = () => void this.kill();
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

  /** See `SandboxProcess.events`: one consumer; a second iteration is `INVALID_REQUEST`. */
  get events(): AsyncIterable<ExecEvent> {
    return { [Symbol.asyncIterator]: () => this.#consume() };
  }

  /**
   * See `SandboxProcess.write`. With an SDK before 2.13, which sends stdin as
   * text only, bytes that are not UTF-8 are refused with `UNSUPPORTED`.
   */
  write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      return Promise.reject(invalidRequest("stdin data must be a string or Uint8Array", { field: "data" }, PROVIDER));
    }
    if (this.#closing) return Promise.reject(invalidRequest("stdin was closed", {}, PROVIDER));
    if (this.#exited) return Promise.reject(processExited(PROVIDER));
    let payload: string | Uint8Array;
    try {
      payload = this.#textOnlySdk ? asText(data) : data;
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#inOrder("write", (options) => this.#sandbox.commands.sendStdin(this.#run.pid, payload, options));
  }

  /**
   * See `SandboxProcess.closeStdin`. `UNSUPPORTED` (stdin stays open) with an
   * SDK before 2.13, which has no `closeStdin`, and with a sandbox whose envd
   * predates 0.5.2 (its template needs a rebuild).
   */
  closeStdin(): Promise<void> {
    const close = this.#sandbox.commands.closeStdin;
    if (this.#closing) return this.#closing;
    if (this.#exited) return Promise.resolve();
    if (typeof close !== "function") {
      const reason = "the installed e2b SDK has no commands.closeStdin (it came in 2.13)";
      return Promise.reject(unsupportedClose(reason));
    }
    const closing = this.#inOrder("closeStdin", (options) =>
      close.call(this.#sandbox.commands, this.#run.pid, options).catch((error: unknown) => {
        // The SDK refuses before sending anything when the sandbox's envd is too old.
        if (errorName(error) === "SandboxError" && /support closeStdin/.test(String((error as Error).message))) {
          throw unsupportedClose(`the sandbox's envd is older than 0.5.2; rebuild its template`, error);
        }
        throw error;
      }),
    ).catch((error: unknown) => {
      // Closing an exited command's stdin is done; a failed close leaves stdin open for another try.
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

  /** The queue's iterator, handed out once. */
  #consume(): AsyncIterator<ExecEvent> {
    if (this.#iterated) throw invalidRequest("a process's events can be iterated once", {}, PROVIDER);
    this.#iterated = true;
    return this.#queue[Symbol.asyncIterator]();
  }

  /** SDKs before 2.13 have no `closeStdin`, and their `sendStdin` takes a string only. */
  get #textOnlySdk(): boolean {
    return typeof this.#sandbox.commands.closeStdin !== "function";
  }

  /**
   * Runs one stdin request after those called before it, within `lookupMs`.
   * `NOT_FOUND` once the command has exited (before or while sending).
   */
  #inOrder(
    operation: string,
    send: (options: { requestTimeoutMs: number; signal: AbortSignal }) => Promise<void>,
  ): Promise<void> {
    const site = { operation, sandboxId: this.#sandboxId };
    const task = async () => {
      if (this.#exited) throw processExited(PROVIDER);
      try {
        await this.#context.run(undefined, site, this.#context.options.timeouts.lookupMs, (call) =>
          send({ requestTimeoutMs: call.remainingMs(), signal: call.signal }),
        );
      } catch (error) {
        if (SandportError.hasCode(error, "NOT_FOUND")) throw processExited(PROVIDER, error);
        throw error;
      }
    };
    const next = this.#stdin.then(task);
    this.#stdin = next.catch(() => {});
    return next;
  }
}

/** Bytes as text for SDKs that send text only, refused unless they are UTF-8 (nothing may change on the way). */
function asText(data: string | Uint8Array): string {
  if (typeof data === "string") return data;
  try {
    return strictUtf8.decode(data);
  } catch (error) {
    throw new SandportError({
      code: "UNSUPPORTED",
      provider: PROVIDER,
      retryable: false,
      cause: error,
      message: "the installed e2b SDK (before 2.13) sends stdin as text only, and these bytes are not UTF-8",
      details: { feature: "binary stdin" },
    });
  }
}

function unsupportedClose(reason: string, cause?: unknown): SandportError {
  return new SandportError({
    code: "UNSUPPORTED",
    provider: PROVIDER,
    retryable: false,
    message: `e2b cannot close a spawned command's stdin: ${reason}; kill() ends it`,
    details: { feature: "closeStdin" },
    ...(cause === undefined ? {} : { cause }),
  });
}
