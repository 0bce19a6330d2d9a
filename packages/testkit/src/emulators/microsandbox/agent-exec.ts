/**
 * `core.exec.*` sessions: one command per `core.exec.request`, run on the
 * backend's `execStream` (or `exec`), its events relayed as
 * `core.exec.started`, `core.exec.stdout` / `core.exec.stderr` (raw bytes) and
 * a terminal `core.exec.exited` or `core.exec.failed`.
 *
 * @module
 */

import { type ArgvExecRequest, type ExecEvent, type ExecResult, MAX_OUTPUT_BYTES, SandportError } from "@sandport/core";
import { backendEvents } from "../harness/backend-events.js";
import { FLAG_TERMINAL } from "./agent-codec.js";
import type { AgentConnection } from "./agent-connection.js";
import type { MicrosandboxContext, MicrosandboxSandbox } from "./context.js";
import { LiveStdin, notEmulated } from "./interactive.js";
import { GuestPathError, toWorkspaceRelative } from "./paths.js";

/** A command with no deadline of its own still needs one for the port: a day. */
const UNBOUNDED_MS = 24 * 60 * 60 * 1000;
const SIGKILL = 9;

/** agentd's `ExecFailed.kind`. */
type ExecFailureKind =
  | "not_found"
  | "permission_denied"
  | "bad_cwd"
  | "bad_args"
  | "resource_limit"
  | "user_setup_failed"
  | "pty_setup_failed"
  | "other";

/** A command that never ran, as agentd reports it. */
class ExecFailure extends Error {
  readonly kind: ExecFailureKind;
  readonly errnoName: string | null;
  readonly stage: string | null;

  constructor(kind: ExecFailureKind, message: string, errnoName: string | null = null, stage: string | null = null) {
    super(message);
    this.kind = kind;
    this.errnoName = errnoName;
    this.stage = stage;
  }
}

const ERRNO: Readonly<Record<string, number>> = { ENOENT: 2, EINVAL: 22, EPERM: 1 };

/** `core.exec.request`, as the SDK sends it. */
interface ExecRequestPayload {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env: readonly string[];
  readonly cwd: string | null;
  readonly user: string | null;
  readonly tty: boolean;
  readonly rlimits: readonly unknown[];
}

/** What an exec session needs besides its request. */
export interface ExecSessionOptions {
  readonly context: MicrosandboxContext;
  readonly sandbox: MicrosandboxSandbox;
  readonly connection: AgentConnection;
  readonly id: number;
  /** How long to wait for stdin given up front; see {@link LiveStdin}. */
  readonly stdinGraceMs: number;
}

/** One `core.exec.request` and the command it runs. Receives the session's later messages. */
export class ExecSession {
  readonly #options: ExecSessionOptions;
  readonly #stdin: LiveStdin;
  readonly #abort = new AbortController();
  #signal: number | undefined;
  /** The command's working directory as the guest names it, for failure messages. */
  #guestCwd = "/";

  constructor(options: ExecSessionOptions) {
    this.#options = options;
    this.#stdin = new LiveStdin(options.context, options.connection, options.id, options.stdinGraceMs);
  }

  /** Run the command to its end. Never rejects: failures become `core.exec.failed`. */
  async run(payload: unknown): Promise<void> {
    const { sandbox, connection, id } = this.#options;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    // Tracked from the request on, so that stopping the sandbox also ends a command still waiting for stdin.
    sandbox.data.executions.add({ kill: (signal) => this.signal({ signal }), done });
    try {
      const request = this.#prepare(readRequest(payload));
      const stdin = await this.#stdin.collect(this.#abort.signal);
      if (this.#signal !== undefined) {
        connection.send(id, 0, "core.exec.started", { pid: sandbox.data.executions.allocatePid() });
        connection.send(id, FLAG_TERMINAL, "core.exec.exited", { code: 128 + this.#signal });
        return;
      }
      await this.#execute(stdin.length === 0 ? request : { ...request, stdin });
    } catch (error) {
      const failure = toFailure(error, this.#guestCwd);
      connection.send(id, FLAG_TERMINAL, "core.exec.failed", {
        kind: failure.kind,
        errno: failure.errnoName === null ? null : (ERRNO[failure.errnoName] ?? null),
        errno_name: failure.errnoName,
        message: failure.message,
        stage: failure.stage,
      });
    } finally {
      finished();
    }
  }

  /** `core.exec.stdin`: data or EOF for the command's standard input. */
  stdin(payload: unknown): void {
    const data = (payload as { data?: unknown } | undefined)?.data;
    this.#stdin.receive(data instanceof Uint8Array ? data : new Uint8Array());
  }

  /** `core.exec.signal`: every signal ends the command (the port stops commands only by aborting). */
  signal(payload: unknown): void {
    const signal = Number((payload as { signal?: unknown } | undefined)?.signal);
    if (!Number.isInteger(signal) || signal <= 0 || signal > 64) return;
    this.#signal ??= signal;
    this.#abort.abort(new Error(`signal ${signal}`));
  }

  /** The backend request for an exec request: mapped cwd, sandbox env under request env. */
  #prepare(request: ExecRequestPayload): ArgvExecRequest {
    const { context, sandbox } = this.#options;
    if (request.tty) {
      notEmulated(context, "core.exec.request tty");
      throw new ExecFailure("pty_setup_failed", "PTY sessions are not emulated", null, "posix_openpt");
    }
    if (request.user !== null) {
      notEmulated(context, "core.exec.request user");
      throw new ExecFailure("user_setup_failed", `running as user ${request.user} is not emulated`, "EPERM", "setuid");
    }
    if (request.rlimits.length > 0) {
      notEmulated(context, "core.exec.request rlimits");
      throw new ExecFailure("resource_limit", "per-command rlimits are not emulated", "EINVAL", "setrlimit");
    }
    const env: Record<string, string> = {};
    for (const { key, value } of sandbox.data.spec.env) env[key] = value;
    for (const entry of request.env) {
      const separator = entry.indexOf("=");
      if (separator <= 0) throw new ExecFailure("bad_args", `malformed environment entry ${JSON.stringify(entry)}`);
      env[entry.slice(0, separator)] = entry.slice(separator + 1);
    }
    let cwd: string;
    this.#guestCwd = request.cwd ?? sandbox.data.spec.workdir ?? "/";
    try {
      cwd = toWorkspaceRelative(this.#guestCwd);
    } catch (error) {
      if (error instanceof GuestPathError) throw new ExecFailure("bad_cwd", error.message, "EINVAL", "chdir");
      throw error;
    }
    return {
      argv: [request.cmd, ...request.args],
      env,
      ...(cwd === "" ? {} : { cwd }),
      timeoutMs: UNBOUNDED_MS,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    };
  }

  async #execute(request: ArgvExecRequest): Promise<void> {
    const { context, sandbox, connection, id } = this.#options;
    let started = false;
    const start = (pid: number | undefined) => {
      if (started) return;
      started = true;
      connection.send(id, 0, "core.exec.started", { pid: pid ?? sandbox.data.executions.allocatePid() });
    };
    try {
      let result: ExecResult | undefined;
      for await (const event of this.#events(request)) {
        context.touch(sandbox);
        if (event.type === "started") start(event.pid);
        else if (event.type === "exited") result = event.result;
        else if (event.data !== "") {
          start(undefined);
          const type = event.type === "stdout" ? "core.exec.stdout" : "core.exec.stderr";
          connection.send(id, 0, type, { data: Buffer.from(event.data, "utf8") });
        }
      }
      start(undefined);
      connection.send(id, FLAG_TERMINAL, "core.exec.exited", { code: this.#exitCode(result) });
    } catch (error) {
      // A command stopped by a signal exits, however the backend reports the abort.
      if (this.#signal === undefined) throw error;
      start(undefined);
      connection.send(id, FLAG_TERMINAL, "core.exec.exited", { code: 128 + this.#signal });
    }
  }

  #events(request: ArgvExecRequest): AsyncIterable<ExecEvent> {
    const { context, sandbox } = this.#options;
    const op = { signal: this.#abort.signal, timeoutMs: UNBOUNDED_MS };
    return backendEvents(context.backend, sandbox.data.handle, request, op);
  }

  #exitCode(result: ExecResult | undefined): number {
    if (this.#signal !== undefined) return 128 + this.#signal;
    if (result === undefined || result.exitCode === null) return 128 + SIGKILL;
    return result.exitCode;
  }
}

function readRequest(payload: unknown): ExecRequestPayload {
  const raw = (typeof payload === "object" && payload !== null ? payload : {}) as Record<string, unknown>;
  const strings = (value: unknown) => Array.isArray(value) && value.every((entry) => typeof entry === "string");
  if (typeof raw.cmd !== "string" || raw.cmd === "") throw new ExecFailure("bad_args", "cmd is required");
  if (raw.args !== undefined && !strings(raw.args)) throw new ExecFailure("bad_args", "args must be strings");
  if (raw.env !== undefined && !strings(raw.env)) throw new ExecFailure("bad_args", "env must be KEY=VALUE strings");
  return {
    cmd: raw.cmd,
    args: (raw.args as string[] | undefined) ?? [],
    env: (raw.env as string[] | undefined) ?? [],
    cwd: typeof raw.cwd === "string" ? raw.cwd : null,
    user: typeof raw.user === "string" ? raw.user : null,
    tty: raw.tty === true,
    rlimits: Array.isArray(raw.rlimits) ? raw.rlimits : [],
  };
}

/** A backend failure to start a command, as the `ExecFailed` agentd would send. */
function toFailure(error: unknown, guestCwd: string): ExecFailure {
  if (error instanceof ExecFailure) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (SandportError.hasCode(error, "NOT_FOUND")) {
    // The port reports a missing working directory as NOT_FOUND before anything runs.
    return new ExecFailure("bad_cwd", `chdir ${guestCwd}: No such file or directory (os error 2)`, "ENOENT", "chdir");
  }
  if (SandportError.hasCode(error, "INVALID_REQUEST")) return new ExecFailure("bad_args", message, "EINVAL", "execvp");
  return new ExecFailure("other", message);
}
