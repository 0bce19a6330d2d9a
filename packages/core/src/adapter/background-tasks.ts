import type { SandportError } from "../errors/sandport-error.js";

/**
 * Work an adapter does after a call has returned (destroying the sandbox an
 * abandoned launch produced, say). Failures are never lost: each goes to
 * `onError` at once and is kept for {@link settle}. Every runtime with
 * background work exposes `settle()` and an `onBackgroundError` option by
 * these names.
 */
export class BackgroundTasks {
  readonly #running = new Set<Promise<void>>();
  readonly #failures: SandportError[] = [];
  readonly #mapError: (error: unknown) => SandportError;
  readonly #onError: ((error: SandportError) => void) | undefined;

  /**
   * @param mapError turns a failure into a `SandportError`
   * @param onError the runtime's `onBackgroundError` option, called once per failure
   */
  constructor(mapError: (error: unknown) => SandportError, onError?: (error: SandportError) => void) {
    this.#mapError = mapError;
    this.#onError = onError;
  }

  /** How many tasks are running. */
  get size(): number {
    return this.#running.size;
  }

  /** Runs `work` in the background. */
  track(work: () => Promise<void>): void {
    const running = Promise.resolve()
      .then(work)
      .catch((error: unknown) => {
        const failure = this.#mapError(error);
        this.#failures.push(failure);
        try {
          this.#onError?.(failure);
        } catch {
          // The caller's hook failing must not hide the failure it was told about: it is kept for settle().
        }
      })
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  /** Waits until no task runs (tasks may start others); resolves with, and forgets, the failures so far. */
  async settle(): Promise<SandportError[]> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
    return this.#failures.splice(0);
  }
}
