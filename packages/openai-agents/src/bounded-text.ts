/**
 * Text gathered from a stream that nobody may read for a while, kept within
 * `limit` characters: past it, the oldest characters are dropped and counted.
 * What is taken starts with a line saying how many were dropped, worded as the
 * framework's UnixLocal sandbox words it.
 */
export class BoundedText {
  readonly #limit: number;
  #text = "";
  #dropped = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Adds `chunk`, dropping the oldest characters beyond the limit. */
  append(chunk: string): void {
    if (chunk.length === 0) return;
    // Slice the chunk first, so one huge chunk is never joined whole to the kept text.
    const tail = chunk.length > this.#limit ? chunk.slice(chunk.length - this.#limit) : chunk;
    this.#dropped += chunk.length - tail.length;
    const joined = this.#text + tail;
    const excess = joined.length - this.#limit;
    if (excess > 0) {
      this.#dropped += excess;
      this.#text = joined.slice(excess);
    } else {
      this.#text = joined;
    }
  }

  /** The text kept since the last call, behind a line counting what was dropped (if anything was); then empties. */
  take(): string {
    const taken =
      this.#dropped === 0
        ? this.#text
        : `[...${this.#dropped} characters truncated from process output...]\n${this.#text}`;
    this.#text = "";
    this.#dropped = 0;
    return taken;
  }
}
