/**
 * `core.exec.*` sessions: one command per `core.exec.request`, its events
 * relayed as `core.exec.started`, `core.exec.stdout` / `core.exec.stderr`
 * (the bytes the command wrote) and a terminal `core.exec.exited` or
 * `core.exec.failed`.
 *
 * On a backend with `spawn` the command starts at once and its stdin is a
 * live pipe, as under agentd: `core.exec.stdin` data is written as it
 * arrives, an empty chunk closes it, and a command that is never sent EOF
 * keeps reading. On a backend without `spawn`, stdin is collected up front
 * instead (see `LiveStdin`).
 *
 * @module
 */

import type { ArgvExecRequest, ExecEvent, ExecResult, SandboxProcess } from "@sandport/core";
import { backendEvents } from "../harness/backend-events.js";
import { FLAG_TERMINAL } from "./agent-codec.js";
import type { AgentConnection } from "./agent-connection.js";
import type { MicrosandboxContext, MicrosandboxSandbox } from "./context.js";
import { prepareExec, toFailure, UNBOUNDED_MS } from "./exec-request.js";
import { LiveStdin, PipedStdin } from "./interactive.js";

const SIGKILL = 9;
/** How long the backend may take to start a command. */
const START_TIMEOUT_MS = 60_000;

/** What an exec session needs besides its request. */
export interface ExecSessionOptions {
  readonly context: MicrosandboxContext;
  readonly sandbox: MicrosandboxSandbox;
  readonly connection: AgentConnection;
  readonly id: number;
  /** How long to wait for stdin given up front on a backend without `spawn`; see {@link LiveStdin}. */
  readonly stdinGraceMs: number;
}

/** One `core.exec.request` and the command it runs. Receives the session's later messages. */
export class ExecSession {
  readonly #options: ExecSessionOptions;
  readonly #collected: LiveStdin | undefined;
  readonly #piped: PipedStdin | undefined;
  readonly #abort = new AbortController();
  #signal: number | undefined;
  #started = false;

  constructor(options: ExecSessionOptions) {
    this.#options = options;
    const { context, connection, id, stdinGraceMs } = options;
    if (context.backend.spawn) this.#piped = new PipedStdin(connection, id);
    else this.#collected = new LiveStdin(context, connection, id, stdinGraceMs);
  }

  /** Run the command to its end. Never rejects: failures become `core.exec.failed`. */
  async run(payload: unknown): Promise<void> {
    const { context, sandbox, connection, id } = this.#options;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    // Tracked from the request on, so that stopping the sandbox also ends a command not yet started.
    sandbox.data.executions.add({ kill: (signal) => this.signal({ signal }), done });
    let guestCwd = "/";
    try {
      const prepared = prepareExec(context, sandbox, payload);
      guestCwd = prepared.guestCwd;
      if (this.#piped) await this.#runPiped(prepared.request, this.#piped);
      else await this.#runCollected(prepared.request, this.#collected as LiveStdin);
    } catch (error) {
      if (this.#signal !== undefined) this.#exit(128 + this.#signal);
      else connection.send(id, FLAG_TERMINAL, "core.exec.failed", toFailure(error, guestCwd).payload());
    } finally {
      finished();
    }
  }

  /** `core.exec.stdin`: data, or EOF when empty. */
  stdin(payload: unknown): void {
    const data = (payload as { data?: unknown } | undefined)?.data;
    const bytes = data instanceof Uint8Array ? data : new Uint8Array();
    if (this.#piped) this.#piped.receive(bytes);
    else this.#collected?.receive(bytes);
  }

  /** `core.exec.signal`: every signal ends the command (the port stops commands only by killing them). */
  signal(payload: unknown): void {
    const signal = Number((payload as { signal?: unknown } | undefined)?.signal);
    if (!Number.isInteger(signal) || signal <= 0 || signal > 64) return;
    this.#signal ??= signal;
    this.#abort.abort(new Error(`signal ${signal}`));
  }

  async #runPiped(request: ArgvExecRequest, stdin: PipedStdin): Promise<void> {
    const { context, sandbox } = this.#options;
    const spawn = context.backend.spawn as NonNullable<typeof context.backend.spawn>;
    const process: SandboxProcess = await spawn.call(context.backend, sandbox.data.handle, request, {
      signal: this.#abort.signal,
      timeoutMs: START_TIMEOUT_MS,
    });
    stdin.attach(process);
    await this.#relay(process.events);
  }

  async #runCollected(request: ArgvExecRequest, stdin: LiveStdin): Promise<void> {
    const { context, sandbox } = this.#options;
    const input = await stdin.collect(this.#abort.signal);
    if (this.#signal !== undefined) throw new Error(`signal ${this.#signal}`);
    const withStdin = input.length === 0 ? request : { ...request, stdin: input };
    const op = { signal: this.#abort.signal, timeoutMs: UNBOUNDED_MS };
    await this.#relay(backendEvents(context.backend, sandbox.data.handle, withStdin, op));
  }

  /** Relay a command's events; the exit code of a killed command is `128 + signal`. */
  async #relay(events: AsyncIterable<ExecEvent>): Promise<void> {
    const { context, sandbox, connection, id } = this.#options;
    let result: ExecResult | undefined;
    for await (const event of events) {
      context.touch(sandbox);
      if (event.type === "started") this.#start(event.pid);
      else if (event.type === "exited") result = event.result;
      else if (event.bytes.length > 0) {
        this.#start(undefined);
        const type = event.type === "stdout" ? "core.exec.stdout" : "core.exec.stderr";
        connection.send(id, 0, type, { data: Buffer.from(event.bytes) });
      }
    }
    if (this.#signal !== undefined) this.#exit(128 + this.#signal);
    else if (result === undefined || result.exitCode === null) this.#exit(128 + SIGKILL);
    else this.#exit(result.exitCode);
  }

  #start(pid: number | undefined): void {
    if (this.#started) return;
    this.#started = true;
    const { sandbox, connection, id } = this.#options;
    connection.send(id, 0, "core.exec.started", { pid: pid ?? sandbox.data.executions.allocatePid() });
  }

  #exit(code: number): void {
    this.#start(undefined);
    this.#piped?.ended();
    this.#options.connection.send(this.#options.id, FLAG_TERMINAL, "core.exec.exited", { code });
  }
}
