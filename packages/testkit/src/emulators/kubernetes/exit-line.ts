/**
 * Finds the exit line the emulator's process wrapper writes once the command
 * it started exits (a fixed start, the process's tag, `:`, the exit code,
 * a newline) in one output stream, passing on the bytes before it as the
 * command's and holding back only what may be the start of the line.
 *
 * @module
 */

/** Reads one stream's bytes until the wrapper's exit line. */
export class ExitLineScanner {
  readonly #prefix: Buffer;
  #pending = Buffer.alloc(0);
  #exitCode: number | undefined;

  /** @param prefix the exit line up to its code: the fixed start, the tag and `:` */
  constructor(prefix: string) {
    this.#prefix = Buffer.from(prefix);
  }

  /** The exit code, once the line was read whole. */
  get exitCode(): number | undefined {
    return this.#exitCode;
  }

  /** The command's bytes among `bytes` (none once the line was read: what follows is not the command's). */
  feed(bytes: Uint8Array): Buffer {
    if (this.#exitCode !== undefined) return Buffer.alloc(0);
    const seen = Buffer.concat([this.#pending, bytes]);
    const at = seen.indexOf(this.#prefix);
    if (at >= 0) {
      const end = seen.indexOf(10, at + this.#prefix.length);
      if (end < 0) {
        this.#pending = seen.subarray(at);
        return seen.subarray(0, at);
      }
      const code = Number(seen.subarray(at + this.#prefix.length, end).toString("latin1"));
      this.#exitCode = Number.isInteger(code) ? code : -1;
      this.#pending = Buffer.alloc(0);
      return seen.subarray(0, at);
    }
    // Hold back the longest tail that may begin the line.
    let keep = Math.min(seen.length, this.#prefix.length - 1);
    while (keep > 0 && !this.#prefix.subarray(0, keep).equals(seen.subarray(seen.length - keep))) keep--;
    this.#pending = seen.subarray(seen.length - keep);
    return seen.subarray(0, seen.length - keep);
  }

  /** What was held back, when the stream ended without the line. */
  flush(): Buffer {
    const rest = this.#exitCode === undefined ? this.#pending : Buffer.alloc(0);
    this.#pending = Buffer.alloc(0);
    return rest;
  }
}
