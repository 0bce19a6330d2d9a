import { CommandTable } from "../harness/command-table.js";

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
  readonly #running = new CommandTable<RunningCommand, RunningCommand>({ firstPid: 2 });

  /** A fresh pid for a command whose backend reports none. */
  allocatePid(): number {
    return this.#running.newPid();
  }

  /** Track a command until it ends. */
  add(command: RunningCommand): void {
    this.#running.add(command, command);
  }

  /** Number of commands not yet ended (including those still waiting for their stdin). */
  get size(): number {
    return this.#running.size;
  }

  /** Kill every command (SIGKILL) and wait for all of them to end. */
  killAll(): Promise<void> {
    return this.#running.killAll((command) => command.kill(9));
  }
}
