/**
 * One stream of a spawned command's output as an async iterable of text, fed
 * by a pump reading the command's events: chunks wait here until read, so
 * stdout and stderr can be read independently (the port has one event stream
 * for both). Bounded by the command's output cap, past which the runtime
 * stops the command. One reader, as the port's events allow.
 */
export class OutputQueue implements AsyncIterable<string> {
  readonly #chunks: string[] = [];
  #ended = false;
  #failure: { readonly error: unknown } | undefined;
  #wake: (() => void) | undefined;
  #taken = false;

  /** Adds a chunk. */
  push(chunk: string): void {
    this.#chunks.push(chunk);
    this.#notify();
  }

  /** The stream has ended: a reader finishes after the chunks still queued. */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  /** The stream was lost: a reader gets `error` after the chunks still queued. */
  fail(error: unknown): void {
    this.#failure = { error };
    this.#notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    if (this.#taken) throw new TypeError("this output stream is already being read; it has one reader");
    this.#taken = true;
    for (;;) {
      const chunk = this.#chunks.shift();
      if (chunk !== undefined) {
        yield chunk;
        continue;
      }
      if (this.#failure) throw this.#failure.error;
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
