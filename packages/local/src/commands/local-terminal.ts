import {
  invalidRequest,
  type Terminal,
  type TerminalEvent,
  type TerminalSignal,
  validateTerminalSignal,
  validateTerminalSize,
} from "@sandport/core";
import { EventQueue, processExited } from "@sandport/core/adapter";
import { LOCAL_PROVIDER } from "../options.js";
import type { RunOutcome } from "./process-runner.js";
import { dataFrames, type HelperStatus, resizeFrame, signalFrame } from "./terminal-helper.js";

/**
 * A terminal opened with `LocalRuntime.openTerminal`: the runtime feeds it the
 * helper's output and the end; the caller reads events, types, resizes and
 * kills. Writes, resizes and signals travel to the helper as frames on its
 * stdin (see `TERMINAL_HELPER_SOURCE`).
 */
export class LocalTerminal implements Terminal {
  readonly #queue = new EventQueue<TerminalEvent>();
  readonly #kill: AbortController;
  #input: NodeJS.WritableStream | undefined;
  #ended = false;
  #iterated = false;

  /** @param kill aborting it kills the program and everything it started (the runtime wires it to the run) */
  constructor(kill: AbortController) {
    this.#kill = kill;
  }

  /** See `Terminal.events`: one consumer. */
  get events(): AsyncIterable<TerminalEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        if (this.#iterated) throw invalidRequest("a terminal's events can be iterated once", {}, LOCAL_PROVIDER);
        this.#iterated = true;
        return this.#queue[Symbol.asyncIterator]();
      },
    };
  }

  /** The helper's stdin, where frames go. */
  attachInput(input: NodeJS.WritableStream): void {
    this.#input = input;
  }

  /** Bytes the terminal showed. */
  output(chunk: Buffer): void {
    this.#queue.push({ type: "output", bytes: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) });
  }

  /**
   * The helper ended: queues `exited` with how the program ended. `status` is
   * the helper's last word; without one (the runtime stopped it) there is no
   * exit status nor signal.
   */
  finish(outcome: RunOutcome, status: HelperStatus | undefined): void {
    this.#ended = true;
    const stopped = outcome.timedOut || outcome.truncated || outcome.exitCode === null;
    const exitCode = !stopped && status?.kind === "exit" ? status.code : null;
    this.#queue.push({
      type: "exited",
      exitCode,
      signal: !stopped && status?.kind === "signal" ? status.signal : null,
      timedOut: outcome.timedOut,
      truncated: outcome.truncated,
      durationMs: outcome.durationMs,
      // The port's rule (`withLimit`): a program that exited 0 reports none.
      ...(outcome.limit === undefined || exitCode === 0 ? {} : { limit: outcome.limit }),
    });
    this.#queue.end();
  }

  /** The runtime lost the terminal: the events fail with `error`. */
  fail(error: unknown): void {
    this.#ended = true;
    this.#queue.fail(error);
  }

  /** See `Terminal.write`. */
  write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      return Promise.reject(invalidRequest("terminal data must be a string or Uint8Array", {}, LOCAL_PROVIDER));
    }
    return this.#send(dataFrames(typeof data === "string" ? Buffer.from(data, "utf8") : data));
  }

  /** See `Terminal.resize`. */
  async resize(cols: number, rows: number): Promise<void> {
    const size = validateTerminalSize(cols, rows, LOCAL_PROVIDER);
    return this.#send(resizeFrame(size));
  }

  /** See `Terminal.kill`. */
  async kill(signal?: TerminalSignal): Promise<void> {
    const checked = validateTerminalSignal(signal, LOCAL_PROVIDER);
    if (this.#ended) return;
    if (checked === "SIGKILL") {
      if (!this.#kill.signal.aborted) this.#kill.abort(new Error("killed by the caller"));
      return;
    }
    await this.#send(signalFrame(checked)).catch(() => {
      // Ended meanwhile: a signal to a program that is gone does nothing, as promised.
    });
  }

  #send(frames: Buffer): Promise<void> {
    const input = this.#input;
    if (this.#ended || !input) return Promise.reject(processExited(LOCAL_PROVIDER));
    return new Promise((resolve, reject) => {
      // Resolves once the pipe took the bytes; a helper that ended meanwhile breaks the pipe: NOT_FOUND.
      input.write(frames, (error) => (error ? reject(processExited(LOCAL_PROVIDER, error)) : resolve()));
    });
  }
}
