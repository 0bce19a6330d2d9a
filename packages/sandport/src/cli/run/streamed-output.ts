import type { ExecResult } from "@sandport/core";
import type { OutputStream, Terminal } from "../output/terminal.js";

type StreamName = "stdout" | "stderr";

/**
 * The command's output as `run` passes it through: each chunk as it arrives,
 * untouched, then at the exit whatever the result holds that the stream did
 * not show, so that what was printed says what the result says:
 *
 * - a runtime that cannot stream, or a stream that lost its tail: the rest of
 *   the result's output, untouched;
 * - a result that says something else than the stream (the local runtime
 *   replaces bubblewrap's "execvp" line for a missing program with its own
 *   account of why): the result's lines the stream did not show, which are
 *   Sandport's own words, so they go through the terminal (redacted, hints in
 *   the command line's syntax);
 * - a result cut shorter than the stream (an output cap): nothing more.
 */
export class StreamedOutput {
  readonly #terminal: Terminal;
  readonly #streams: Readonly<Record<StreamName, OutputStream>>;
  readonly #shown: Record<StreamName, string> = { stdout: "", stderr: "" };

  constructor(terminal: Terminal, streams: Readonly<Record<StreamName, OutputStream>> = process) {
    this.#terminal = terminal;
    this.#streams = streams;
  }

  /** Passes a chunk of the command's output through as it arrives. */
  write(stream: StreamName, data: string): void {
    this.#shown[stream] += data;
    this.#streams[stream].write(data);
  }

  /** At the command's exit: prints what its result holds that the stream did not show. */
  finish(result: Pick<ExecResult, StreamName>): void {
    for (const stream of ["stdout", "stderr"] as const) {
      const shown = this.#shown[stream];
      const full = result[stream];
      if (shown.startsWith(full)) continue;
      if (full.startsWith(shown)) {
        this.write(stream, full.slice(shown.length));
        continue;
      }
      const seen = new Set(shown.split("\n"));
      for (const line of full.split("\n")) {
        if (line === "" || seen.has(line)) continue;
        if (stream === "stderr") this.#terminal.note(line);
        else this.#streams.stdout.write(`${line}\n`);
      }
    }
  }
}
