/**
 * Commands of one session: started on the backend, their output kept for
 * replay (`GET .../logs` streams from the first line), waited on and killed.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import type { ArgvExecRequest, ExecEvent, ExecResult, SandboxHandle, SandboxRuntime } from "@sandport/core";
import { backendEvents } from "../harness/backend-events.js";
import { type StartSignal, startSignal, CommandTable as Table } from "../harness/command-table.js";

/** One line of a command's NDJSON log stream. */
export interface LogLine {
  readonly stream: "stdout" | "stderr";
  readonly data: string;
}

/** Why a log stream ended early: the session stopped under it. */
export interface StreamFailure {
  readonly code: string;
  readonly message: string;
}

/** What a subscriber hears, in order: log lines, then exactly one `exit` or `failure`. */
export type CommandEvent =
  | { readonly kind: "log"; readonly line: LogLine }
  | { readonly kind: "exit" }
  | { readonly kind: "failure"; readonly failure: StreamFailure };

/** The client's view of the command, as the API reports it. */
export interface CommandView {
  readonly id: string;
  /** The program as the client sent it. */
  readonly name: string;
  readonly args: readonly string[];
  /** The working directory as a sandbox path. */
  readonly cwd: string;
  readonly sessionId: string;
}

/** What {@link CommandTable.start} needs. */
export interface StartCommandOptions {
  readonly backend: SandboxRuntime;
  readonly handle: SandboxHandle;
  readonly view: Omit<CommandView, "id">;
  /** What to run on the backend (paths mapped, environment merged). */
  readonly request: ArgvExecRequest;
}

/** Signals that end a process; each ends the whole tree on the backend (the port kills by aborting). */
const ENDING_SIGNALS = new Set([1, 2, 3, 9, 15]);
const SIGKILL = 9;

/** True when `kill` can deliver this signal number. */
export function isEndingSignal(signal: number): boolean {
  return ENDING_SIGNALS.has(signal);
}

/** One command started through `POST .../cmd`. */
export class EmulatedCommand {
  readonly view: CommandView;
  /** Epoch milliseconds. */
  readonly startedAt = Date.now();
  /** Every line so far, for replay. */
  readonly lines: LogLine[] = [];
  /** Resolves once the command has ended or the session stopped under it (never rejects). */
  readonly done: Promise<void>;
  /** Resolves once the backend started the process; rejects if it could not. */
  readonly started: Promise<void>;

  readonly #listeners = new Set<(event: CommandEvent) => void>();
  readonly #abort = new AbortController();
  #exitCode: number | null = null;
  #durationMs: number | undefined;
  #signal: number | undefined;
  #failure: StreamFailure | undefined;
  #ended = false;

  constructor(id: string, options: StartCommandOptions) {
    this.view = { id, ...options.view };
    const start = startSignal();
    this.started = start.started;
    this.done = this.#run(options, start);
  }

  /** Exit status once ended (128 + signal for a killed command), else `null`. */
  get exitCode(): number | null {
    return this.#exitCode;
  }

  /** Milliseconds from start to end, once ended. */
  get durationMs(): number | undefined {
    return this.#durationMs;
  }

  /** True once the command has ended (or the session stopped under it). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Set when the session stopped before the command ended. */
  get failure(): StreamFailure | undefined {
    return this.#failure;
  }

  /** Receive events from now on. Returns the unsubscribe function. */
  subscribe(listener: (event: CommandEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Kill the process tree; the exit code becomes 128 + `signal`. */
  kill(signal: number): void {
    if (this.#ended || this.#signal !== undefined) return;
    this.#signal = signal;
    this.#abort.abort(new Error(`killed by signal ${signal}`));
  }

  /** Kill the command because its session stopped; streams following it end with `failure`. */
  interrupt(failure: StreamFailure): void {
    if (this.#ended) return;
    this.#failure ??= failure;
    this.kill(SIGKILL);
  }

  #emit(event: CommandEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }

  async #run(options: StartCommandOptions, start: StartSignal): Promise<void> {
    let sawStart = false;
    const markStarted = () => {
      if (sawStart) return;
      sawStart = true;
      start.resolve();
    };
    let result: ExecResult | undefined;
    try {
      for await (const event of this.#events(options)) {
        if (event.type === "started") markStarted();
        else if (event.type === "exited") result = event.result;
        else if (event.data !== "") {
          markStarted();
          const line: LogLine = { stream: event.type, data: event.data };
          this.lines.push(line);
          this.#emit({ kind: "log", line });
        }
      }
    } catch (error) {
      if (!sawStart && this.#signal === undefined) {
        start.reject(error);
        this.#finish(null);
        return;
      }
    }
    markStarted();
    this.#finish(exitCodeOf(result, this.#signal));
  }

  #finish(exitCode: number | null): void {
    this.#exitCode = exitCode;
    this.#durationMs = Date.now() - this.startedAt;
    this.#ended = true;
    this.#emit(this.#failure ? { kind: "failure", failure: this.#failure } : { kind: "exit" });
    this.#listeners.clear();
  }

  #events(options: StartCommandOptions): AsyncIterable<ExecEvent> {
    const op = { signal: this.#abort.signal, timeoutMs: options.request.timeoutMs };
    return backendEvents(options.backend, options.handle, options.request, op);
  }
}

/** The exit code to report: the process's own, or 128 + the signal that ended it (SIGKILL for a timeout). */
function exitCodeOf(result: ExecResult | undefined, signal: number | undefined): number {
  if (signal !== undefined) return 128 + signal;
  if (result === undefined || result.exitCode === null) return 128 + SIGKILL;
  return result.exitCode;
}

/** The commands of one session, ended ones kept (the API reports them). */
export class CommandTable {
  readonly #commands = new Table<string, EmulatedCommand>({ keepEnded: true });

  /** Start a command; resolves once the backend has started it, rejects if it could not. */
  start(options: StartCommandOptions): Promise<EmulatedCommand> {
    const id = `cmd_${randomBytes(12).toString("hex")}`;
    const command = new EmulatedCommand(id, options);
    return this.#commands.admit(id, command, command.started);
  }

  /** A command of this session, running or ended. */
  get(id: string): EmulatedCommand | undefined {
    return this.#commands.get(id);
  }

  /** Kill every running command with `failure` and wait until they have ended. */
  interruptAll(failure: StreamFailure): Promise<void> {
    return this.#commands.killAll((command) => command.interrupt(failure));
  }
}
