import { SandportError } from "../errors/sandport-error.js";
import type { OrchestratorEvent } from "./events.js";

/**
 * Wraps a caller's progress listener so that it can never throw into the
 * orchestrator, a pool or a limiter: a thrown error would otherwise lose a
 * handle between launch and its bookkeeping, or turn a verified destroy into
 * a reported failure. Errors are kept (as `UNEXPECTED`, the thrown value as
 * `cause`) for the owner to report.
 */
export class ContainedListener<E extends { readonly type: string } = OrchestratorEvent> {
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
