import { keyList } from "../validation/known-keys.js";
import type { ArgvExecRequest, ShellExecRequest } from "./exec-request.js";
import type { ResourceLimitKind } from "./exec-result.js";

/** Fields of an exec request that a terminal takes too: where it runs, its environment, its budgets. */
type TerminalExecFields = "cwd" | "env" | "timeoutMs" | "maxOutputBytes";

/** The window size of a terminal, in character cells. */
export interface TerminalSize {
  /** Columns, an integer from 1 to {@link MAX_TERMINAL_CELLS}. */
  readonly cols: number;
  /** Rows, an integer from 1 to {@link MAX_TERMINAL_CELLS}. */
  readonly rows: number;
}

/** Largest `cols` or `rows` accepted: the kernel keeps each in 16 bits (`struct winsize`). */
export const MAX_TERMINAL_CELLS = 65_535;

/** Size of a terminal whose request gives none: the classic 80 by 24. */
export const DEFAULT_TERMINAL_SIZE: TerminalSize = Object.freeze({ cols: 80, rows: 24 });

/**
 * Request for {@link SandboxRuntime.openTerminal}: a command given as `argv` or
 * `shell` (run with `sh -c`), as for `exec`, with `cwd`, `env` (the variable
 * `TERM` defaults to `xterm-256color`), `timeoutMs` (the terminal's run budget,
 * else the runtime's) and `maxOutputBytes` (cap on all the output, else the runtime's),
 * plus the window size (`cols`, `rows`; default 80 by 24). There is no `stdin`:
 * write to the terminal instead.
 */
export type TerminalRequest = (
  | Pick<ArgvExecRequest, "argv" | "shell" | TerminalExecFields>
  | Pick<ShellExecRequest, "argv" | "shell" | TerminalExecFields>
) &
  Partial<TerminalSize>;

/** Every key a {@link TerminalRequest} may have; any other is refused with `INVALID_REQUEST`. */
export const TERMINAL_REQUEST_KEYS = keyList<
  Pick<ArgvExecRequest, "argv" | "shell" | TerminalExecFields> & TerminalSize
>({
  argv: true,
  shell: true,
  cwd: true,
  env: true,
  timeoutMs: true,
  maxOutputBytes: true,
  cols: true,
  rows: true,
});

/** Signals {@link Terminal.kill} accepts. */
export const TERMINAL_SIGNALS = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGKILL", "SIGUSR1", "SIGUSR2", "SIGTERM"] as const;

/** A signal {@link Terminal.kill} may send. */
export type TerminalSignal = (typeof TERMINAL_SIGNALS)[number];

/** Raw bytes the terminal's program wrote, exactly as the terminal delivered them (escape sequences intact). */
export interface TerminalOutputEvent {
  readonly type: "output";
  /** The bytes, in order. The terminal merges the program's stdout and stderr, and turns `\n` into `\r\n`. */
  readonly bytes: Uint8Array;
}

/**
 * The terminal's program has ended and all its output was delivered. Always the
 * last event.
 *
 * - Exited by itself: `exitCode` is its status, `signal` null.
 * - Ended by a signal (say, `kill("SIGTERM")`): `exitCode` null, `signal` its name.
 * - Stopped by the runtime: `exitCode` and `signal` null, and `timedOut` when
 *   the run budget ran out, `truncated` when the output passed the cap, neither
 *   for `kill()` / `kill("SIGKILL")`, an aborted `op.signal` or `destroy`.
 *
 * `limit` says a sandbox resource limit stopped the program, with the same
 * rule as `ExecResult.limit`.
 */
export interface TerminalExitedEvent {
  readonly type: "exited";
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  readonly durationMs: number;
  /** The resource limit the program was stopped at, where the runtime can tell; see `ExecResult.limit`. */
  readonly limit?: ResourceLimitKind;
}

/** One event of a terminal, in order: `output` chunks, then one `exited`. */
export type TerminalEvent = TerminalOutputEvent | TerminalExitedEvent;

/**
 * A program running on a pseudo-terminal inside the sandbox, from
 * `openTerminal`: it sees a real terminal on its stdin, stdout and stderr, is
 * the leader of its own session with that terminal as its controlling one, so
 * job control, `stty` and full-screen programs work as in a terminal emulator.
 *
 * Bytes written go through the terminal's line discipline: `\x03` (Ctrl-C)
 * sends SIGINT to the foreground job (a shell's child killed so reports 130 to
 * the shell), `\x04` at the start of a line is end of file, `\x1a` stops the job.
 */
export interface Terminal {
  /**
   * What the terminal shows, as {@link TerminalEvent}s. One consumer; iterating
   * again is refused. Output waits for the consumer; all of it together is
   * bounded by the request's `maxOutputBytes` (past it the program is killed,
   * `truncated`), so a slow reader never makes the runtime buffer without bound. Leaving the
   * loop early does not kill the program: call {@link kill}.
   */
  readonly events: AsyncIterable<TerminalEvent>;
  /**
   * Types `data` into the terminal (a string is UTF-8), resolving once the
   * runtime has handed the bytes on. Rejects `NOT_FOUND` once the program
   * has ended, `INVALID_REQUEST` for anything but a string or bytes.
   */
  write(data: string | Uint8Array): Promise<void>;
  /**
   * Sets the window size: `stty size` inside then reports it, and the
   * foreground job receives SIGWINCH. `INVALID_REQUEST` for sizes that are not
   * integers from 1 to {@link MAX_TERMINAL_CELLS}; `NOT_FOUND` once ended.
   */
  resize(cols: number, rows: number): Promise<void>;
  /**
   * Sends `signal` (default `SIGKILL`) to the program. `SIGKILL` kills the
   * program and everything it started, as `destroy` would, and the exit then
   * reports no status and no signal; another signal goes to the program's
   * process group, which decides what to do with it. Resolves once sent; after
   * the end it does nothing. `INVALID_REQUEST` for a signal not in
   * {@link TERMINAL_SIGNALS}; `UNSUPPORTED`, nothing sent, for a signal other
   * than `SIGKILL` where the provider can only kill a terminal's program.
   */
  kill(signal?: TerminalSignal): Promise<void>;
}
