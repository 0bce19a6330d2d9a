/**
 * Sessions of the toolbox process API. A Daytona session is one long-lived
 * shell that runs the commands sent to it one after another; the emulator
 * keeps that order (a session's commands queue behind each other) but runs
 * each command as its own backend process, so shell state a command changes
 * (`cd`, `export`, variables) does not carry over to the next one.
 *
 * @module
 */

import { randomUUID } from "node:crypto";

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

/** Runs one command's script on the backend; resolves its exit code (`undefined` when killed). */
export type CommandRunner = (
  command: string,
  signal: AbortSignal,
  onChunk: (chunk: OutputChunk) => void,
) => Promise<number | undefined>;

/** A command sent to a session. */
export class SessionCommand {
  readonly id = randomUUID();
  readonly command: string;
  /** Set once the command exited; stays absent for a killed command, as the daemon records no exit code then. */
  exitCode: number | undefined;
  /** Everything the command printed so far. */
  readonly output: OutputChunk[] = [];
  readonly #listeners = new Set<CommandListener>();
  readonly #abort = new AbortController();
  #ended = false;

  constructor(command: string) {
    this.command = command;
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

  /** Kill the command (or keep it from starting). */
  kill(): void {
    this.#abort.abort(new Error("killed"));
  }

  /** Run it with `runner`; settles once it ended. Never rejects. */
  async run(runner: CommandRunner): Promise<void> {
    try {
      if (!this.#abort.signal.aborted) {
        this.exitCode = await runner(this.command, this.#abort.signal, (chunk) => {
          this.output.push(chunk);
          for (const listener of [...this.#listeners]) listener.chunk(chunk);
        });
      }
    } catch (error) {
      // A command the backend could not start still ends, with its reason as output (the shell would print it).
      const chunk: OutputChunk = {
        stream: "stderr",
        data: `${error instanceof Error ? error.message : String(error)}\n`,
      };
      this.output.push(chunk);
      for (const listener of [...this.#listeners]) listener.chunk(chunk);
      this.exitCode = 1;
    }
    this.#ended = true;
    for (const listener of [...this.#listeners]) listener.end();
    this.#listeners.clear();
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
  execute(command: string, runner: CommandRunner): { command: SessionCommand; done: Promise<void> } {
    const entry = new SessionCommand(command);
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
