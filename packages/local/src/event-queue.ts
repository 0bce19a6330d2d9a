/**
 * A single-consumer async queue: the producer pushes items, then ends or fails
 * it; the consumer iterates with `for await`. Items pushed before the consumer
 * asks are buffered.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiting: ((result: IteratorResult<T>) => void) | undefined;
  #waitingFail: ((error: unknown) => void) | undefined;
  #ended = false;
  #error: { readonly error: unknown } | undefined;

  /** Adds an item. Ignored after `end` or `fail`. */
  push(item: T): void {
    if (this.#ended || this.#error) return;
    if (this.#waiting) this.#settle().resolve({ value: item, done: false });
    else this.#items.push(item);
  }

  /** Ends the queue once buffered items are consumed. */
  end(): void {
    if (this.#ended || this.#error) return;
    this.#ended = true;
    if (this.#waiting) this.#settle().resolve({ value: undefined, done: true });
  }

  /** Fails the queue: the consumer gets `error` once buffered items are consumed. */
  fail(error: unknown): void {
    if (this.#ended || this.#error) return;
    this.#error = { error };
    if (this.#waitingFail) this.#settle().reject(error);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.#items.length > 0) {
        yield this.#items.shift() as T;
        continue;
      }
      if (this.#error) throw this.#error.error;
      if (this.#ended) return;
      const next = await new Promise<IteratorResult<T>>((resolve, reject) => {
        this.#waiting = resolve;
        this.#waitingFail = reject;
      });
      if (next.done) return;
      yield next.value;
    }
  }

  #settle() {
    const resolve = this.#waiting as (result: IteratorResult<T>) => void;
    const reject = this.#waitingFail as (error: unknown) => void;
    this.#waiting = undefined;
    this.#waitingFail = undefined;
    return { resolve, reject };
  }
}
