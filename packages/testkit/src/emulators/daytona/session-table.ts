/**
 * Sessions of the toolbox process API. A Daytona session is one long-lived
 * shell that runs the commands sent to it one after another; the emulator
 * keeps that order (a session's commands queue behind each other) but runs
 * each command as its own backend process, so shell state a command changes
 * (`cd`, `export`, variables) does not carry over to the next one. An async
 * command's stdin stays open for `input` until it ends, as the daemon holds
 * its input pipe open; a synchronous one reads end of file at once.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import type { StdinWriter } from "./shell.js";

/** One chunk of a command's output, in arrival order. */
export interface OutputChunk {
  readonly stream: "stdout" | "stderr";
  readonly data: string;
}

/** Receives a running command's output and its end. */
export interface CommandListener {
  chunk(chunk: OutputChunk): void;
  end(): void;
}

/**
 * Runs one command's script on the backend; resolves its exit code
 * (`undefined` when killed). A runner that keeps the command's stdin open
 * hands its writer to `attachStdin` once the command runs.
 */
export type CommandRunner = (
  command: string,
  signal: AbortSignal,
  onChunk: (chunk: OutputChunk) => void,
  attachStdin: (writer: StdinWriter) => void,
) => Promise<number | undefined>;

/** Why {@link SessionCommand.input} refused: the command ended, or it does not read input (yet). */
export type InputRefusal = "ended" | "no-stdin";

/** A command sent to a session. */
export class SessionCommand {
  readonly id = randomUUID();
  readonly command: string;
  /** The command's stdin stays open for {@link input} (an async command on a backend that can spawn). */
  readonly acceptsInput: boolean;
  /** Input sent with {@link input} is not copied into the output (the request's `suppressInputEcho`). */
  readonly suppressInputEcho: boolean;
  /** Set once the command exited; stays absent for a killed command, as the daemon records no exit code then. */
  exitCode: number | undefined;
  /** Everything the command printed so far. */
  readonly output: OutputChunk[] = [];
  readonly #listeners = new Set<CommandListener>();
  readonly #abort = new AbortController();
  /** Resolves with the stdin writer once the command runs, or `undefined` once it ended without one. */
  readonly #stdin: Promise<StdinWriter | undefined>;
  #attach: (writer: StdinWriter | undefined) => void = () => {};
  #running = false;
  #ended = false;

  constructor(
    command: string,
    options: { readonly acceptsInput?: boolean; readonly suppressInputEcho?: boolean } = {},
  ) {
    this.command = command;
    this.acceptsInput = options.acceptsInput ?? false;
    this.suppressInputEcho = options.suppressInputEcho ?? false;
    this.#stdin = new Promise((resolve) => {
      this.#attach = resolve;
    });
  }

  /** True once the command ended (exited or was killed). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Standard output so far. */
  get stdout(): string {
    return this.#joined("stdout");
  }

  /** Standard error so far. */
  get stderr(): string {
    return this.#joined("stderr");
  }

  /** Both streams interleaved in arrival order, as the daemon's combined log has them. */
  get combined(): string {
    return this.output.map((chunk) => chunk.data).join("");
  }

  /**
   * Receive output from now on (call it right after reading `output`, with
   * no await in between, to miss nothing). Returns the unsubscribe function.
   * An ended command calls `end` at once.
   */
  subscribe(listener: CommandListener): () => void {
    if (this.#ended) {
      listener.end();
      return () => {};
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Write to the command's stdin, with a newline added when `data` lacks one
   * (the daemon's rule, for `read`), and, unless {@link suppressInputEcho},
   * copy it into the output as stdout, as the daemon does. Resolves a refusal
   * instead when the command has ended, reads no input, or is still queued
   * behind another; a command that is starting is waited for.
   */
  async input(data: string): Promise<InputRefusal | undefined> {
    if (this.#ended) return "ended";
    if (!this.acceptsInput || !this.#running) return "no-stdin";
    const stdin = await this.#stdin;
    if (!stdin) return "ended";
    const line = data.endsWith("\n") ? data : `${data}\n`;
    try {
      await stdin(line);
    } catch {
      // The pipe closed under the write: the command is ending.
      return "ended";
    }
    if (!this.suppressInputEcho) this.#emit({ stream: "stdout", data: line });
    return undefined;
  }

  /** Kill the command (or keep it from starting). */
  kill(): void {
    this.#abort.abort(new Error("killed"));
  }

  /** Run it with `runner`; settles once it ended. Never rejects. */
  async run(runner: CommandRunner): Promise<void> {
    try {
      if (!this.#abort.signal.aborted) {
        this.#running = true;
        this.exitCode = await runner(
          this.command,
          this.#abort.signal,
          (chunk) => this.#emit(chunk),
          (writer) => this.#attach(writer),
        );
      }
    } catch (error) {
      // A command the backend could not start still ends, with its reason as output (the shell would print it).
      this.#emit({ stream: "stderr", data: `${error instanceof Error ? error.message : String(error)}\n` });
      this.exitCode = 1;
    }
    this.#attach(undefined);
    this.#ended = true;
    for (const listener of [...this.#listeners]) listener.end();
    this.#listeners.clear();
  }

  #emit(chunk: OutputChunk): void {
    this.output.push(chunk);
    for (const listener of [...this.#listeners]) listener.chunk(chunk);
  }

  #joined(stream: OutputChunk["stream"]): string {
    return this.output
      .filter((chunk) => chunk.stream === stream)
      .map((chunk) => chunk.data)
      .join("");
  }
}

/** One session: its commands in the order they were sent, run one at a time. */
export class Session {
  readonly id: string;
  readonly commands = new Map<string, SessionCommand>();
  #queue: Promise<void> = Promise.resolve();

  constructor(id: string) {
    this.id = id;
  }

  /** Queue a command behind the session's earlier ones. Resolves the command at once; `done` settles when it ended. */
  execute(
    command: string,
    runner: CommandRunner,
    options: { readonly acceptsInput?: boolean; readonly suppressInputEcho?: boolean } = {},
  ): { command: SessionCommand; done: Promise<void> } {
    const entry = new SessionCommand(command, options);
    this.commands.set(entry.id, entry);
    const done = this.#queue.then(() => entry.run(runner));
    this.#queue = done;
    return { command: entry, done };
  }

  /** Kill every command, running or queued, and wait for them to end. */
  async killAll(): Promise<void> {
    for (const command of this.commands.values()) command.kill();
    await this.#queue;
  }
}

/** The sessions of one sandbox. */
export class SessionTable {
  readonly #sessions = new Map<string, Session>();

  /** A new session, or `undefined` when the id is taken. */
  create(id: string): Session | undefined {
    if (this.#sessions.has(id)) return undefined;
    const session = new Session(id);
    this.#sessions.set(id, session);
    return session;
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /** Sessions in creation order. */
  list(): Session[] {
    return [...this.#sessions.values()];
  }

  /** Remove a session and kill its commands. False when there was none. */
  async delete(id: string): Promise<boolean> {
    const session = this.#sessions.get(id);
    if (!session) return false;
    this.#sessions.delete(id);
    await session.killAll();
    return true;
  }

  /** Remove every session, killing their commands (a stopped sandbox's daemon keeps none). */
  async clear(): Promise<void> {
    const sessions = this.list();
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.killAll()));
  }
}
