import type { TerminalSize } from "@sandport/core";
import type { VendorEnd } from "@sandport/core/adapter";

/** Where a started process's output goes: raw bytes, in order. */
export type OutputSink = (stream: "stdout" | "stderr", data: Uint8Array) => void;

/** A process started on a data plane. */
export interface PlaneProcess {
  /** sandboxd's process id, or the command's marker on pod exec (which has none). */
  readonly pid: number | string;
  /** How it ended. */
  readonly ended: Promise<VendorEnd>;
  /** Writes to its stdin. */
  write(data: Uint8Array): Promise<void>;
  /** Closes its stdin (EOF). */
  closeStdin(): Promise<void>;
  /** Kills it and its process group (or every process carrying its marker); `signal` bounds the kill. */
  kill(signal: AbortSignal): Promise<void>;
  /** Sets the size of its terminal (a process started with `pty`). */
  resize(size: TerminalSize): Promise<void>;
}

/** How one data plane starts `sh -c script` in a pod. */
export interface ProcessPlane {
  /**
   * Starts the script in `pod` and resolves once it runs; output goes to
   * `output`. `signal` cancels the start only. With `pty`, on a terminal of
   * that size: all its output arrives as `stdout`.
   */
  start(
    pod: string,
    script: string,
    marker: string,
    output: OutputSink,
    signal: AbortSignal,
    pty?: TerminalSize,
  ): Promise<PlaneProcess>;
}
