/**
 * One PTY session of the toolbox daemon: an interactive login shell on a real
 * terminal of the backend (`openTerminal`), whose bytes go to every attached
 * WebSocket as binary messages, and whose end closes them with the exit code.
 *
 * @module
 */

import type { SandboxHandle, SandboxRuntime, Terminal, TerminalExitedEvent } from "@sandport/core";
import type { WebSocketConnection } from "../harness/websocket.js";
import { DaemonError } from "./errors.js";
import { UNBOUNDED_COMMAND_MS } from "./shell.js";

/** The shell the daemon starts: `common.GetShell()` with `-i -l` (bash in Daytona's images). */
const SHELL_ARGV = ["/bin/bash", "-i", "-l"];

/** Largest `cols` or `rows` the daemon accepts (it answers 400 from 1000 on: "must be less than 1000"). */
export const MAX_PTY_CELLS = 999;

/** What a session was created with (`PtySessionInfo` without `active`). */
export interface PtySessionSpec {
  readonly id: string;
  /** As the client gave it (the sandbox path), for `PtySessionInfo.cwd`. */
  readonly cwd: string;
  /** The backend's cwd for it (`undefined`: the home directory). */
  readonly backendCwd: string | undefined;
  readonly envs: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
  readonly lazyStart: boolean;
}

/** An attached client; `exitControl` when it offered `X-Daytona-Pty-Exit-Control`. */
interface PtyClient {
  readonly socket: WebSocketConnection;
  readonly exitControl: boolean;
}

/** A PTY session and its attached clients. */
export class PtySession {
  readonly spec: PtySessionSpec;
  readonly createdAt = new Date().toISOString();
  cols: number;
  rows: number;
  readonly #clients = new Set<PtyClient>();
  readonly #abort = new AbortController();
  #terminal: Terminal | undefined;
  #active = false;
  #ended = false;
  #killed = false;
  /** Called once the shell ended (the daemon then forgets the session). */
  onEnd: (() => void) | undefined;

  constructor(spec: PtySessionSpec) {
    this.spec = spec;
    this.cols = spec.cols;
    this.rows = spec.rows;
  }

  /** `PtySessionInfo` as the daemon answers it. */
  info() {
    const { id, cwd, envs, lazyStart } = this.spec;
    return {
      id,
      cwd,
      envs,
      cols: this.cols,
      rows: this.rows,
      createdAt: this.createdAt,
      active: this.#active,
      lazyStart,
    };
  }

  /** True once the shell has started and not yet ended. */
  get active(): boolean {
    return this.#active;
  }

  /** Starts the shell on a terminal of the backend; `env` is the sandbox's environment under the session's. */
  async start(backend: SandboxRuntime, handle: SandboxHandle, env: Readonly<Record<string, string>>): Promise<void> {
    if (this.#terminal || this.#ended) return;
    if (!backend.openTerminal) throw new DaemonError(500, "INTERNAL_SERVER_ERROR", "failed to start PTY session");
    this.#terminal = await backend.openTerminal(
      handle,
      {
        argv: SHELL_ARGV,
        ...(this.spec.backendCwd === undefined ? {} : { cwd: this.spec.backendCwd }),
        env: { ...env, TERM: "xterm-256color", ...this.spec.envs },
        timeoutMs: UNBOUNDED_COMMAND_MS,
        cols: this.cols,
        rows: this.rows,
      },
      { signal: this.#abort.signal },
    );
    this.#active = true;
    void this.#pump(this.#terminal);
  }

  /** Attaches a client: it gets `{"type":"control","status":"connected"}`, then the bytes from now on. */
  attach(socket: WebSocketConnection, exitControl: boolean): void {
    const client = { socket, exitControl };
    this.#clients.add(client);
    socket.send(JSON.stringify({ type: "control", status: "connected" }));
    socket.onMessage = (data) => {
      // Text and binary messages alike are typed into the terminal.
      this.#terminal?.write(data).catch(() => {});
    };
    socket.signal.addEventListener("abort", () => this.#clients.delete(client), { once: true });
  }

  /** Sets the window size (the daemon's `resize`). */
  async resize(cols: number, rows: number): Promise<void> {
    if (!this.#active || !this.#terminal) throw new DaemonError(410, "GONE", "cannot resize inactive PTY session");
    await this.#terminal.resize(cols, rows);
    this.cols = cols;
    this.rows = rows;
  }

  /** Kills the shell and what it started; the clients are closed with exit code 137. */
  async kill(): Promise<void> {
    if (this.#ended) return;
    this.#killed = true;
    if (this.#terminal) await this.#terminal.kill("SIGKILL");
    else this.#end(137);
  }

  /** Stops the session with its sandbox. */
  abort(): void {
    this.#killed = true;
    this.#abort.abort(new Error("the sandbox is stopping"));
  }

  async #pump(terminal: Terminal): Promise<void> {
    let exited: TerminalExitedEvent | undefined;
    try {
      for await (const event of terminal.events) {
        if (event.type === "exited") exited = event;
        else for (const client of this.#clients) client.socket.send(Buffer.from(event.bytes));
      }
    } catch {
      // The terminal failed: reported as killed below.
    }
    this.#end(this.#killed ? 137 : exitCodeOf(exited));
  }

  #end(exitCode: number): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#active = false;
    const exitReason = exitReasonOf(exitCode);
    const closeData = JSON.stringify(exitReason === undefined ? { exitCode } : { exitCode, exitReason });
    for (const client of this.#clients) {
      if (client.exitControl) {
        client.socket.send(
          JSON.stringify({
            type: "control",
            status: "exited",
            exitCode,
            ...(exitReason === undefined ? {} : { exitReason }),
          }),
        );
      }
      client.socket.close(exitCode === 0 ? 1000 : 1011, closeData);
    }
    this.#clients.clear();
    this.onEnd?.();
  }
}

/**
 * The exit code the daemon reports: the shell's status, or -1 for a shell
 * ended by a signal (Go's `ExitError.ExitCode()`, which the daemon passes on).
 */
function exitCodeOf(exited: TerminalExitedEvent | undefined): number {
  return exited?.exitCode ?? -1;
}

/** The daemon's reason for a non-zero exit, in the close frame (`closeClientsWithExitCode`). */
function exitReasonOf(exitCode: number): string | undefined {
  if (exitCode === 0) return undefined;
  if (exitCode === 130) return "Ctrl+C";
  if (exitCode === 137) return "SIGKILL";
  if (exitCode === 143) return "SIGTERM";
  if (exitCode > 128) return `signal ${exitCode - 128}`;
  return "non-zero exit";
}
