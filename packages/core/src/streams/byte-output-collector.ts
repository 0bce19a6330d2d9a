import type { ExecOutputEvent } from "../port/exec-event.js";
import type { ExecResult } from "../port/exec-result.js";
import type { OutputStream } from "./output-collector.js";

/**
 * Collects a command's stdout and stderr as bytes, for providers that hand
 * output over raw, up to a shared byte cap. Each kept chunk becomes an output
 * event carrying its exact bytes and its text (decoded per stream, so a
 * character split across chunks is decoded once, in the chunk that completes
 * it). The chunk that crosses the cap is cut there (stepping back to the start
 * of a UTF-8 character the cut would split); everything after it is dropped,
 * `truncated` turns true and `onOverflow` runs once (to stop the command).
 * Call {@link finish} when the command has ended, so text left incomplete at
 * the end is decoded (as U+FFFD).
 */
export class ByteOutputCollector {
  /** True once output passed the cap. */
  truncated = false;
  readonly #text = { stdout: "", stderr: "" };
  readonly #decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  readonly #onChunk: ((event: ExecOutputEvent) => void) | undefined;
  readonly #onOverflow: (() => void) | undefined;
  #remaining: number;
  #finished = false;

  /**
   * @param maxBytes the cap on stdout + stderr together
   * @param onChunk receives each kept chunk as an output event (and, from {@link finish}, a text-only tail)
   * @param onOverflow runs once when output passes the cap
   */
  constructor(maxBytes: number, onChunk?: (event: ExecOutputEvent) => void, onOverflow?: () => void) {
    this.#remaining = maxBytes;
    this.#onChunk = onChunk;
    this.#onOverflow = onOverflow;
  }

  /** Standard output kept so far, as text. */
  get stdout(): string {
    return this.#text.stdout;
  }

  /** Standard error kept so far, as text. */
  get stderr(): string {
    return this.#text.stderr;
  }

  /** Adds one chunk of raw output. Ignored once truncated or finished. */
  push(stream: OutputStream, chunk: Uint8Array): void {
    if (this.truncated || this.#finished || chunk.length === 0) return;
    if (chunk.length <= this.#remaining) {
      this.#remaining -= chunk.length;
      this.#keep(stream, chunk);
      return;
    }
    const kept = chunk.subarray(0, characterStart(chunk, this.#remaining));
    this.#remaining = 0;
    this.truncated = true;
    if (kept.length > 0) this.#keep(stream, kept);
    this.#onOverflow?.();
  }

  /** The command has ended: decodes what is left of each stream's text. Idempotent. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    for (const stream of ["stdout", "stderr"] as const) {
      const tail = this.#decoders[stream].decode();
      if (tail === "") continue;
      this.#text[stream] += tail;
      this.#onChunk?.({ type: stream, data: tail, bytes: new Uint8Array(0) });
    }
  }

  /** The result of a command whose output this collected ({@link finish}ed first): its exit code (`null` when killed), and how long it ran. */
  result(exitCode: number | null, durationMs: number, timedOut = false): ExecResult {
    this.finish();
    return { exitCode, stdout: this.stdout, stderr: this.stderr, truncated: this.truncated, timedOut, durationMs };
  }

  #keep(stream: OutputStream, bytes: Uint8Array): void {
    // A copy: the provider may reuse its buffer.
    const own = bytes.slice();
    const data = this.#decoders[stream].decode(own, { stream: true });
    this.#text[stream] += data;
    this.#onChunk?.({ type: stream, data, bytes: own });
  }
}

/**
 * Where to cut `bytes` so that at most `limit` are kept: `limit`, or up to 3
 * bytes earlier when the byte at `limit` continues a UTF-8 character that
 * starts before it.
 */
function characterStart(bytes: Uint8Array, limit: number): number {
  let end = limit;
  while (end > 0 && limit - end < 3 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  // Not a character's start after all (binary data): keep every byte allowed.
  return end > 0 && ((bytes[end] as number) & 0xc0) === 0xc0 ? end : limit;
}
