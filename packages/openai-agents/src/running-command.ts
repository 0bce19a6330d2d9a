import type { ExecResult, SandboxProcess } from "@sandport/core";
import type { CommandOutput } from "./output.js";

/**
 * A command started with the runtime's `spawn`, which the model may come back
 * to (`write_stdin`) while it runs. Its events are drained as they arrive; the
 * output not yet reported is kept until {@link take}.
 */
export class RunningCommand {
  /** The spawned process (stdin open). */
  readonly process: SandboxProcess;
  #pending = { output: "", stdout: "", stderr: "" };
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
        this.#pending.output += event.data;
        this.#pending[event.type] += event.data;
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

  /** The output since the last call. */
  take(): CommandOutput {
    const taken = this.#pending;
    this.#pending = { output: "", stdout: "", stderr: "" };
    return taken;
  }
}
