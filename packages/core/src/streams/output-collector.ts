import type { ExecResult } from "../port/exec-result.js";

/** Which output stream a chunk came from. */
export type OutputStream = "stdout" | "stderr";

/**
 * Collects a command's stdout and stderr as text up to a shared byte cap. The
 * chunk that crosses the cap is cut at a UTF-8 character boundary; everything
 * after it is dropped, `truncated` turns true and `onOverflow` runs once (to
 * stop the command). `onChunk` sees each kept chunk, for streaming.
 */
export class OutputCollector {
  /** Standard output kept so far. */
  stdout = "";
  /** Standard error kept so far. */
  stderr = "";
  /** True once output passed the cap. */
  truncated = false;
  #remaining: number;
  readonly #onChunk: ((stream: OutputStream, data: string) => void) | undefined;
  readonly #onOverflow: (() => void) | undefined;

  /**
   * @param maxBytes the cap on stdout + stderr together
   * @param onChunk receives each kept chunk
   * @param onOverflow runs once when output passes the cap
   */
  constructor(maxBytes: number, onChunk?: (stream: OutputStream, data: string) => void, onOverflow?: () => void) {
    this.#remaining = maxBytes;
    this.#onChunk = onChunk;
    this.#onOverflow = onOverflow;
  }

  /** Adds one chunk; returns nothing, so it can be handed to SDK callbacks directly. */
  push(stream: OutputStream, data: string): void {
    if (this.truncated || data === "") return;
    const bytes = Buffer.byteLength(data);
    if (bytes <= this.#remaining) {
      this.#keep(stream, data);
      this.#remaining -= bytes;
      return;
    }
    const kept = utf8Prefix(data, this.#remaining);
    if (kept !== "") this.#keep(stream, kept);
    this.#remaining = 0;
    this.truncated = true;
    this.#onOverflow?.();
  }

  /** The result of a command whose output this collected: its exit code (`null` when killed), and how long it ran. */
  result(exitCode: number | null, durationMs: number, timedOut = false): ExecResult {
    return { exitCode, stdout: this.stdout, stderr: this.stderr, truncated: this.truncated, timedOut, durationMs };
  }

  #keep(stream: OutputStream, data: string): void {
    if (stream === "stdout") this.stdout += data;
    else this.stderr += data;
    this.#onChunk?.(stream, data);
  }
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (0b10xxxxxx) to the start of the split character.
  while (end > 0 && ((encoded[end] as number) & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString("utf8");
}
