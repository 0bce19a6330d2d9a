import type { ExecResult, SandboxProcess } from "@sandport/core";
import { BoundedText } from "./bounded-text.js";
import type { CommandOutput } from "./output.js";

/**
 * The most characters of each stream (and of both, interleaved) a running
 * command keeps between two reports: the framework's UnixLocal sandbox keeps
 * as many (1 MiB characters). Older ones are dropped and counted.
 */
export const MAX_UNREAD_OUTPUT_CHARS = 1024 * 1024;

/**
 * A command started with the runtime's `spawn`, which the model may come back
 * to (`write_stdin`) while it runs. Its events are drained as they arrive; the
 * output not yet reported is kept until {@link take}, at most
 * {@link MAX_UNREAD_OUTPUT_CHARS} characters of each stream: a command that
 * prints faster than the model polls cannot fill the host's memory.
 */
export class RunningCommand {
  /** The spawned process (stdin open). */
  readonly process: SandboxProcess;
  readonly #pending = {
    output: new BoundedText(MAX_UNREAD_OUTPUT_CHARS),
    stdout: new BoundedText(MAX_UNREAD_OUTPUT_CHARS),
    stderr: new BoundedText(MAX_UNREAD_OUTPUT_CHARS),
  };
  #result: ExecResult | undefined;
  #failure: unknown;
  readonly #drained: Promise<void>;

  constructor(process: SandboxProcess) {
    this.process = process;
    this.#drained = this.#drain().catch((error: unknown) => {
      this.#failure = error ?? new Error("the command's events failed");
    });
  }

  async #drain(): Promise<void> {
    for await (const event of this.process.events) {
      if (event.type === "stdout" || event.type === "stderr") {
        this.#pending.output.append(event.data);
        this.#pending[event.type].append(event.data);
      } else if (event.type === "exited") {
        this.#result = event.result;
      }
    }
  }

  /** The result once the command has ended; `undefined` while it runs. */
  get result(): ExecResult | undefined {
    return this.#result;
  }

  /**
   * Waits until the command ends or `yieldMs` passes, whichever is first.
   * Rejects when the runtime lost the command.
   */
  async settle(yieldMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const elapsed = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, yieldMs);
    });
    try {
      await Promise.race([this.#drained, elapsed]);
    } finally {
      clearTimeout(timer);
    }
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** The output since the last call (each stream behind a line counting what it dropped, if it dropped any). */
  take(): CommandOutput {
    return {
      output: this.#pending.output.take(),
      stdout: this.#pending.stdout.take(),
      stderr: this.#pending.stderr.take(),
    };
  }
}
