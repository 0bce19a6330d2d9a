import { SandportError } from "../errors/sandport-error.js";

/**
 * Delivers events to a caller's listener so that it can never throw into a
 * pool or a limiter (a throw between a launch and its bookkeeping would lose
 * a sandbox). What it throws is kept, as `UNEXPECTED` with the thrown value
 * as `cause`, for the owner to report.
 */
export class FleetListener<E extends { readonly type: string }> {
  /** Errors the listener threw, in order. */
  readonly errors: SandportError[] = [];
  readonly #listener: ((event: E) => void) | undefined;
  readonly #provider: string;

  /**
   * @param listener the caller's listener, if any
   * @param provider the runtime's provider name, stamped on the errors
   */
  constructor(listener: ((event: E) => void) | undefined, provider: string) {
    this.#listener = listener;
    this.#provider = provider;
  }

  /** Delivers `event`; never throws. */
  readonly emit = (event: E): void => {
    if (!this.#listener) return;
    try {
      this.#listener(event);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.errors.push(
        new SandportError({
          code: "UNEXPECTED",
          provider: this.#provider,
          message: `the onEvent listener threw on a "${event.type}" event: ${reason}`,
          cause: error,
          details: { event: event.type },
        }),
      );
    }
  };
}
