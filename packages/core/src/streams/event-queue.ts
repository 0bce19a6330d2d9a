/**
 * A single-consumer async queue: a producer (callbacks, a running command)
 * pushes items, then ends or fails it; the consumer iterates with `for await`.
 * Items pushed before the consumer asks are kept; it throws the failure only
 * after the items queued before it.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiting: (() => void) | undefined;
  #ended = false;
  #failure: { readonly error: unknown } | undefined;

  /** How many items wait to be consumed. */
  get size(): number {
    return this.#items.length;
  }

  /** Adds an item. Ignored after `end` or `fail`. */
  push(item: T): void {
    if (this.#ended) return;
    this.#items.push(item);
    this.#wake();
  }

  /** Ends the iteration once the queued items are consumed. Idempotent. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#wake();
  }

  /** Ends the iteration with `error` thrown after the queued items. Ignored after `end`. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#failure = { error };
    this.#ended = true;
    this.#wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.#items.length > 0) {
        yield this.#items.shift() as T;
        continue;
      }
      if (this.#failure) throw this.#failure.error;
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }
}
