import type { ExecOutputEvent } from "@sandport/core";

/** Which output stream a chunk came from. */
type Stream = "stdout" | "stderr";

const NO_BYTES = new Uint8Array(0);

/**
 * Collects a command's stdout and stderr as bytes up to a shared byte cap,
 * and as text decoded once per stream (a character split across chunks is
 * decoded in the chunk that completes it). The chunk that crosses the cap is
 * cut at the cap; everything after it is dropped, `truncated` turns true and
 * `onOverflow` runs once. `onChunk` sees each kept chunk as an output event.
 */
export class ByteOutput {
  /** Standard output kept so far, as text. */
  stdout = "";
  /** Standard error kept so far, as text. */
  stderr = "";
  /** True once output passed the cap. */
  truncated = false;
  #remaining: number;
  readonly #decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  readonly #onChunk: ((event: ExecOutputEvent) => void) | undefined;
  readonly #onOverflow: (() => void) | undefined;

  /**
   * @param maxBytes the cap on stdout + stderr together
   * @param onChunk receives each kept chunk
   * @param onOverflow runs once when output passes the cap
   */
  constructor(maxBytes: number, onChunk?: (event: ExecOutputEvent) => void, onOverflow?: () => void) {
    this.#remaining = maxBytes;
    this.#onChunk = onChunk;
    this.#onOverflow = onOverflow;
  }

  /** Adds one chunk of a stream's bytes. */
  push(stream: Stream, bytes: Uint8Array): void {
    if (this.truncated || bytes.length === 0) return;
    const kept = bytes.length > this.#remaining ? bytes.subarray(0, this.#remaining) : bytes;
    this.#remaining -= kept.length;
    if (kept.length > 0) this.#keep(stream, this.#decoders[stream].decode(kept, { stream: true }), kept);
    if (kept.length < bytes.length) {
      this.truncated = true;
      this.#onOverflow?.();
    }
  }

  /**
   * The streams ended: the text of a character left incomplete at the end is
   * decoded (as U+FFFD), with no bytes of its own. After a truncation nothing
   * is added: the cut may have split a character on purpose.
   */
  finish(): void {
    if (this.truncated) return;
    for (const stream of ["stdout", "stderr"] as const) {
      const tail = this.#decoders[stream].decode();
      if (tail !== "") this.#keep(stream, tail, NO_BYTES);
    }
  }

  #keep(stream: Stream, data: string, bytes: Uint8Array): void {
    if (stream === "stdout") this.stdout += data;
    else this.stderr += data;
    this.#onChunk?.({ type: stream, data, bytes });
  }
}
