import type { ExecEvent, ExecResult, SandboxProcess } from "@sandport/core";
import { invalidRequest } from "@sandport/core";
import { EventQueue, processExited } from "@sandport/core/adapter";
import { LOCAL_PROVIDER, type LocalIsolation } from "../options.js";

/**
 * A command started with `LocalRuntime.spawn`: the runtime feeds it output
 * and the end, the caller reads events, writes stdin and kills it.
 *
 * Output is queued for `events` until read, and kept for `result`; both are
 * bounded by the command's output cap, which kills the command when passed.
 */
export class LocalProcess implements SandboxProcess {
  /** See `SandboxProcess.result`. */
  readonly result: Promise<ExecResult>;
  readonly #queue = new EventQueue<ExecEvent>();
  readonly #decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  readonly #kill: AbortController;
  readonly #isolation: LocalIsolation;
  #settle: { resolve: (result: ExecResult) => void; reject: (error: unknown) => void } | undefined;
  #stdin: NodeJS.WritableStream | undefined;
  #stdinClosed = false;
  #exited = false;
  #iterated = false;

  /**
   * @param kill aborting it kills the command (the runtime wires it to the run)
   * @param isolation reported in the `started` event
   */
  constructor(kill: AbortController, isolation: LocalIsolation) {
    this.#kill = kill;
    this.#isolation = isolation;
    this.result = new Promise<ExecResult>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // A caller that only reads events must not see an unhandled rejection.
    this.result.catch(() => {});
  }

  /** See `SandboxProcess.events`: one consumer. */
  get events(): AsyncIterable<ExecEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        if (this.#iterated) throw invalidRequest("a process's events can be iterated once", {}, LOCAL_PROVIDER);
        this.#iterated = true;
        return this.#queue[Symbol.asyncIterator]();
      },
    };
  }

  /** The command runs: queues `started`. */
  started(pid: number | undefined): void {
    this.#queue.push(
      pid === undefined
        ? { type: "started", isolation: this.#isolation }
        : { type: "started", pid, isolation: this.#isolation },
    );
  }

  /** Its stdin, open for writing. */
  attachStdin(stdin: NodeJS.WritableStream): void {
    this.#stdin = stdin;
    if (this.#stdinClosed) stdin.end();
  }

  /** A chunk of output: queued with its exact bytes and its text. */
  output(stream: "stdout" | "stderr", chunk: Buffer): void {
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#queue.push({ type: stream, data: this.#decoders[stream].decode(chunk, { stream: true }), bytes });
  }

  /** The command ended: queues the rest of the text and `exited`, and settles `result`. */
  finish(result: ExecResult): void {
    this.#exited = true;
    for (const stream of ["stdout", "stderr"] as const) {
      const tail = this.#decoders[stream].decode();
      if (tail !== "") this.#queue.push({ type: stream, data: tail, bytes: new Uint8Array(0) });
    }
    this.#queue.push({ type: "exited", result });
    this.#queue.end();
    this.#settle?.resolve(result);
  }

  /** The runtime lost the command: events and `result` fail with `error`. */
  fail(error: unknown): void {
    this.#exited = true;
    this.#queue.fail(error);
    this.#settle?.reject(error);
  }

  /** See `SandboxProcess.write`. */
  write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      return Promise.reject(invalidRequest("stdin data must be a string or Uint8Array", {}, LOCAL_PROVIDER));
    }
    if (this.#stdinClosed) return Promise.reject(invalidRequest("stdin was closed", {}, LOCAL_PROVIDER));
    const stdin = this.#stdin;
    if (this.#exited || !stdin) return Promise.reject(processExited(LOCAL_PROVIDER));
    return new Promise((resolve, reject) => {
      // Resolves once the pipe took the bytes; a command that exits meanwhile breaks the pipe: NOT_FOUND.
      stdin.write(data, (error) => (error ? reject(processExited(LOCAL_PROVIDER, error)) : resolve()));
    });
  }

  /** See `SandboxProcess.closeStdin`. */
  async closeStdin(): Promise<void> {
    if (this.#stdinClosed) return;
    this.#stdinClosed = true;
    this.#stdin?.end();
  }

  /** See `SandboxProcess.kill`. */
  async kill(): Promise<void> {
    if (!this.#kill.signal.aborted) this.#kill.abort(new Error("killed by the caller"));
  }
}
