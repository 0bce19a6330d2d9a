import type { Terminal } from "./terminal.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Progress of long work, on stderr (never stdout): on a terminal, a spinner
 * beside the current step; elsewhere (CI logs, pipes) one plain line per step,
 * each written once. `quiet` shows nothing (`--json`, `run --quiet`).
 */
export class Progress {
  readonly #terminal: Terminal;
  readonly #quiet: boolean;
  #current: string | undefined;
  #frame = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(terminal: Terminal, options: { readonly quiet?: boolean } = {}) {
    this.#terminal = terminal;
    this.#quiet = options.quiet === true;
  }

  /** Starts a step: `message` is shown until the next step or {@link done}. */
  step(message: string): void {
    if (this.#quiet) return;
    this.#clear();
    this.#current = message;
    if (!this.#terminal.interactive) {
      this.#terminal.note(`… ${message}`);
      return;
    }
    this.#draw();
    this.#timer = setInterval(() => this.#draw(), 80);
    this.#timer.unref();
  }

  /** Changes the current step's text, on a terminal only (a log gets a line per step, not per update). */
  update(message: string): void {
    if (this.#quiet || !this.#terminal.interactive || this.#timer === undefined) return;
    this.#current = message;
  }

  /** Ends the current step with a result line (`✔ message`, or `✖ message` when `failed`). */
  done(message: string, failed = false): void {
    if (this.#quiet) return;
    this.#clear();
    const color = this.#terminal.errorColor;
    this.#terminal.note(`${failed ? color.red("✖") : color.green("✔")} ${message}`);
  }

  /**
   * Prints a line without ending the step: on a terminal above the spinner,
   * which is then drawn again; elsewhere just the line (the step's own line
   * was written once, when it started).
   */
  log(message: string): void {
    if (this.#quiet) return;
    if (!this.#terminal.interactive) {
      this.#terminal.note(message);
      return;
    }
    const current = this.#current;
    this.#clear();
    this.#terminal.note(message);
    if (current !== undefined) this.step(current);
  }

  /** Stops the spinner, leaving nothing behind. */
  stop(): void {
    this.#clear();
  }

  #draw(): void {
    const frame = FRAMES[this.#frame++ % FRAMES.length];
    this.#terminal.rawError(`\r\u001b[2K${this.#terminal.errorColor.cyan(frame ?? "")} ${this.#current ?? ""}`);
  }

  #clear(): void {
    if (this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      this.#terminal.rawError("\r\u001b[2K");
    }
    this.#current = undefined;
  }
}
