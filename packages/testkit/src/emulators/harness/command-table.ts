/**
 * The commands of one sandbox (or session), as every emulator keeps them: by
 * id, admitted once the backend started them, dropped when they end unless the
 * protocol still answers for ended ones, and all killed and waited for when
 * the sandbox stops. What a command is (its output, its exit) stays the
 * provider's; the table needs only {@link TableCommand}.
 *
 * @module
 */

/** What the table needs of a command. */
export interface TableCommand {
  /** Settles once the command has ended. Must never reject. */
  readonly done: Promise<unknown>;
}

/** Options of a {@link CommandTable}. */
export interface CommandTableOptions {
  /**
   * Keep ended commands, for protocols that report on them after the end
   * (Vercel's get-command, Modal's wait and output reads). Default: false, an
   * ended command is dropped.
   */
  readonly keepEnded?: boolean;
  /** The first number {@link CommandTable.newPid} hands out. Default: 1. */
  readonly firstPid?: number;
}

/** A promise with its resolve and reject, for a command's "started" (Node 20 has no `Promise.withResolvers`). */
export interface StartSignal {
  readonly started: Promise<void>;
  /** The backend runs the command (idempotent). */
  resolve(): void;
  /** The command could not start (idempotent, and ignored after `resolve`). */
  reject(error: unknown): void;
}

/** A fresh {@link StartSignal}; its promise never counts as an unhandled rejection. */
export function startSignal(): StartSignal {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const started = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  started.catch(() => undefined);
  return { started, resolve, reject };
}

/** The commands of one sandbox or session, by id. */
export class CommandTable<Id, Command extends TableCommand> {
  readonly #commands = new Map<Id, Command>();
  readonly #keepEnded: boolean;
  #nextPid: number;

  constructor(options: CommandTableOptions = {}) {
    this.#keepEnded = options.keepEnded ?? false;
    this.#nextPid = options.firstPid ?? 1;
  }

  /** A process id no earlier call returned, for protocols that number commands themselves. */
  newPid(): number {
    return this.#nextPid++;
  }

  /** Track a command from now on (and, unless ended ones are kept, until it ends). */
  add(id: Id, command: Command): void {
    this.#commands.set(id, command);
    if (!this.#keepEnded) {
      void command.done.then(() => {
        if (this.#commands.get(id) === command) this.#commands.delete(id);
      });
    }
  }

  /**
   * Track a command and wait until the backend started it. One that could not
   * start is forgotten and the reason thrown, as if it had never been sent.
   */
  async admit(id: Id, command: Command, started: Promise<void>): Promise<Command> {
    this.add(id, command);
    try {
      await started;
    } catch (error) {
      if (this.#commands.get(id) === command) this.#commands.delete(id);
      throw error;
    }
    return command;
  }

  /** A tracked command by id. */
  get(id: Id): Command | undefined {
    return this.#commands.get(id);
  }

  /** Forget a command (it is not killed). False when there was none. */
  delete(id: Id): boolean {
    return this.#commands.delete(id);
  }

  /** Tracked commands, in the order they were added. */
  list(): Command[] {
    return [...this.#commands.values()];
  }

  /** Number of tracked commands. */
  get size(): number {
    return this.#commands.size;
  }

  /** End every tracked command with `kill` and resolve once all of them have ended. */
  async killAll(kill: (command: Command) => void): Promise<void> {
    const commands = this.list();
    for (const command of commands) kill(command);
    await Promise.all(commands.map((command) => command.done));
  }
}
