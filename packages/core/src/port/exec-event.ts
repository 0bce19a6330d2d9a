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

/** A chunk of output. Chunks arrive in order per stream; a chunk may split a UTF-8 character only in `bytes`. */
export interface ExecOutputEvent {
  readonly type: "stdout" | "stderr";
  /** The chunk decoded as UTF-8 (a character split across chunks is decoded once, in the later chunk). */
  readonly data: string;
}

/** The command has finished. Always the last event; carries the whole result, output included. */
export interface ExecExitedEvent {
  readonly type: "exited";
  readonly result: ExecResult;
}

/** One event of a streamed command, in order: `started`, output chunks, `exited`. */
export type ExecEvent = ExecStartedEvent | ExecOutputEvent | ExecExitedEvent;
