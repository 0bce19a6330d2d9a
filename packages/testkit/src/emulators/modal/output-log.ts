/**
 * Everything one output stream (stdout or stderr) of an exec produced, kept
 * whole so a reader can start, or resume after a broken stream, at any byte
 * offset, as the command router's `TaskExecStdioRead` allows.
 */
export class OutputLog {
  readonly #chunks: Buffer[] = [];
  /** Offset of each chunk's first byte. */
  readonly #starts: number[] = [];
  readonly #waiters = new Set<() => void>();
  #length = 0;
  #closed = false;

  /** Bytes written so far. */
  get length(): number {
    return this.#length;
  }

  /** True once no more bytes will come. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Append bytes (ignored once closed). */
  append(bytes: Uint8Array): void {
    if (this.#closed || bytes.length === 0) return;
    this.#chunks.push(Buffer.from(bytes));
    this.#starts.push(this.#length);
    this.#length += bytes.length;
    this.#wake();
  }

  /** No more bytes will come. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** Every byte written, in one buffer. */
  bytes(): Buffer {
    return Buffer.concat(this.#chunks);
  }

  /**
   * The bytes from `offset` on, in chunks of at most `maxChunk` bytes, as they
   * arrive; ends once the log is closed and read to the end, or when `signal`
   * aborts.
   */
  async *read(offset: number, maxChunk: number, signal: AbortSignal): AsyncIterable<Buffer> {
    let position = offset;
    while (!signal.aborted) {
      if (position < this.#length) {
        const pending = this.#from(position);
        for (let start = 0; start < pending.length; start += maxChunk) {
          yield pending.subarray(start, start + maxChunk);
        }
        position += pending.length;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.#waiters.delete(done);
          signal.removeEventListener("abort", done);
          resolve();
        };
        this.#waiters.add(done);
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }

  /** The rest of the chunk that holds byte `position`. */
  #from(position: number): Buffer {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.#starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return this.#chunks[low]!.subarray(position - this.#starts[low]!);
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
