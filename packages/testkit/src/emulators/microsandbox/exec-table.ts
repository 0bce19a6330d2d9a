/** One command of an emulated sandbox, from its request until it has ended. */
export interface RunningCommand {
  /** Stop the command's whole process tree; `signal` is what the exit code reports (`128 + signal`). */
  kill(signal: number): void;
  /** Settles once the command has ended. Never rejects. */
  readonly done: Promise<void>;
}

/**
 * The commands running in one sandbox, so that stopping or removing it can
 * kill them. A command outlives the agent connection that started it, as it
 * does under agentd.
 */
export class ExecTable {
  readonly #running = new Set<RunningCommand>();
  #nextPid = 2;

  /** A fresh pid for a command whose backend reports none. */
  allocatePid(): number {
    return this.#nextPid++;
  }

  /** Track a command until it ends. */
  add(command: RunningCommand): void {
    this.#running.add(command);
    void command.done.then(() => this.#running.delete(command));
  }

  /** Number of commands not yet ended (including those still waiting for their stdin). */
  get size(): number {
    return this.#running.size;
  }

  /** Kill every command (SIGKILL) and wait for all of them to end. */
  async killAll(): Promise<void> {
    const commands = [...this.#running.values()];
    for (const command of commands) command.kill(9);
    await Promise.all(commands.map((command) => command.done));
  }
}
