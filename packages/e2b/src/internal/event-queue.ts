/** A single-consumer async queue: events pushed by callbacks, pulled with `for await`. */
export class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiting: (() => void) | undefined;
  #done = false;
  #error: { readonly reason: unknown } | undefined;

  /** Adds an item; ignored once the queue is closed or failed. */
  push(item: T): void {
    if (this.#done) return;
    this.#items.push(item);
    this.#wake();
  }

  /** Adds a last item and ends the iteration after it. */
  close(last: T): void {
    this.push(last);
    this.#done = true;
    this.#wake();
  }

  /** Ends the iteration with `reason` thrown after the items already queued. */
  fail(reason: unknown): void {
    if (this.#done) return;
    this.#error = { reason };
    this.#done = true;
    this.#wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.#error) throw this.#error.reason;
      if (this.#done) return;
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
