import type { IsolationMode } from "../capabilities/modes.js";
import type { ExecResult } from "./exec-result.js";

/** The command has started. Always the first event. */
export interface ExecStartedEvent {
  readonly type: "started";
  /** Process id inside the sandbox, where the provider reports one. */
  readonly pid?: number;
  /** The isolation the command runs under, where the runtime reports it. */
  readonly isolation?: IsolationMode;
}

/** A chunk of output. Chunks arrive in order per stream. */
export interface ExecOutputEvent {
  readonly type: "stdout" | "stderr";
  /**
   * The chunk decoded as UTF-8. A character split across chunks is decoded
   * once, in the chunk that completes it, so joining every `data` of a stream
   * gives the same text as the result's `stdout` / `stderr`. Bytes that are
   * not UTF-8 become U+FFFD here.
   */
  readonly data: string;
  /**
   * The chunk's raw bytes, exactly as the command wrote them, where the
   * runtime's `binaryOutput` capability is `true` (joining every `bytes` of a
   * stream gives its output byte for byte, binary included). Elsewhere the
   * UTF-8 encoding of `data`, since the provider delivers text only.
   */
  readonly bytes: Uint8Array;
}

/**
 * The command has finished. Always the last event; carries the whole result,
 * output included: `result.limit` says when a resource limit stopped it, as
 * for `exec`.
 */
export interface ExecExitedEvent {
  readonly type: "exited";
  readonly result: ExecResult;
}

/** One event of a streamed command, in order: `started`, output chunks, `exited`. */
export type ExecEvent = ExecStartedEvent | ExecOutputEvent | ExecExitedEvent;
