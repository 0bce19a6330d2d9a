import { randomUUID } from "node:crypto";
import {
  invalidRequest,
  type OpOptions,
  SandportError,
  type Terminal,
  type TerminalEvent,
  type TerminalRequest,
  type TerminalSignal,
  validateTerminalRequest,
  validateTerminalSignal,
  validateTerminalSize,
} from "@sandport/core";
import { EventQueue, KILL_DEADLINE_MS, processExited } from "@sandport/core/adapter";
import { planCommand } from "./command-plan.js";
import type { E2BContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { killProcessTree } from "./process-control.js";

/** Where the program's script waits for the typed line (see {@link openTerminal}). */
const SCRIPT_VARIABLE = "SANDPORT_TERMINAL_SCRIPT";
/** The line typed into E2B's shell: short and constant, so no terminal line limit applies and its echo says nothing. */
const TYPED_LINE = `exec /bin/sh -c "$${SCRIPT_VARIABLE}"\n`;
/** Most bytes the shell may show before the program starts (its login banner, prompt and echo). */
const MAX_PREAMBLE_BYTES = 1024 * 1024;

/**
 * `openTerminal` on E2B. The SDK's `pty.create` always starts `/bin/bash -i -l`
 * on a pseudo-terminal (envd's `Start` with `pty`); the program replaces it:
 * the request, planned as for `exec` (argv quoted, `shell` in `sh -c`, the
 * per-command marker that lets a kill reach its descendants), waits in an
 * environment variable of the shell, and one constant line typed into the
 * shell `exec`s it after printing a one-time sequence (an OSC with a fresh
 * id). Everything the shell showed before that sequence (banner, prompt, the
 * echo of the typed line) is dropped; everything after is the program's.
 * `openTerminal` resolves once the sequence arrives.
 *
 * The run budget is enforced here (the whole tree killed, `timedOut`), with
 * envd's stream deadline a little later as a backstop. envd signals a
 * terminal's process only with SIGKILL, so `kill` with another signal is
 * `UNSUPPORTED`; an exit by a signal reports neither code nor signal (the SDK
 * reports only `-1`).
 */
export async function openTerminal(
  context: E2BContext,
  handle: unknown,
  request: TerminalRequest,
  op?: OpOptions,
): Promise<Terminal> {
  const { workspaceRoot, timeouts } = context.options;
  const { size } = validateTerminalRequest(request, { root: workspaceRoot, provider: PROVIDER });
  // The command part as exec sees it: the plan validates and resolves it (cwd, env, limits) as for spawn.
  const { cols: _cols, rows: _rows, ...command } = request;
  const plan = planCommand(context.options, command, true);
  const id = randomUUID();
  const script = `unset ${SCRIPT_VARIABLE}; printf '\\033]777;sandport;%s\\007' ${id}; ${plan.command}`;
  return context.onInstance(handle, op, "openTerminal", timeouts.lookupMs, async (sandbox, call) => {
    const terminal = new E2BTerminal(context, sandbox, plan.marker, Buffer.from(`\u001b]777;sandport;${id}\u0007`));
    const created = await sandbox.pty.create({
      cols: size.cols,
      rows: size.rows,
      cwd: plan.cwd,
      envs: { ...plan.env, [SCRIPT_VARIABLE]: script },
      timeoutMs: plan.timeoutMs + KILL_DEADLINE_MS,
      // No signal: it would end the terminal's stream with this call. The start is bounded by the request timeout.
      requestTimeoutMs: call.remainingMs(),
      onData: (bytes) => terminal.data(bytes),
    });
    terminal.started(created.pid, plan.timeoutMs, plan.maxOutputBytes);
    created.wait().then(
      () => terminal.finish(0),
      (error: unknown) => terminal.finish(exitCodeOf(error), error),
    );
    const killOnAbort = () => void terminal.kill();
    op?.signal?.addEventListener("abort", killOnAbort, { once: true });
    try {
      await sandbox.pty.sendInput(created.pid, Buffer.from(TYPED_LINE), { requestTimeoutMs: call.remainingMs() });
      await terminal.running(call.signal);
    } catch (error) {
      await terminal.kill();
      throw error;
    }
    return terminal;
  });
}

/** The exit code a `wait()` rejection carries: `-1` (killed, or ended by a signal) becomes `null`. */
function exitCodeOf(error: unknown): number | null {
  const code = (error as { exitCode?: unknown }).exitCode;
  return typeof code === "number" && code >= 0 ? code : null;
}

/** An E2B terminal: output after the start sequence, writes and resizes through envd, kills of the whole tree. */
class E2BTerminal implements Terminal {
  readonly #queue = new EventQueue<TerminalEvent>();
  readonly #context: E2BContext;
  readonly #sandbox: E2BSandbox;
  readonly #marker: string | undefined;
  readonly #startSequence: Buffer;
  #preamble: Buffer | undefined = Buffer.alloc(0);
  #ready: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  readonly #readySeen: Promise<void>;
  #pid: number | undefined;
  #startedAt = performance.now();
  #timer: NodeJS.Timeout | undefined;
  #maxOutputBytes = Number.POSITIVE_INFINITY;
  #outputBytes = 0;
  #stopped: "timedOut" | "truncated" | "killed" | undefined;
  #ended = false;
  #iterated = false;

  constructor(context: E2BContext, sandbox: E2BSandbox, marker: string | undefined, startSequence: Buffer) {
    this.#context = context;
    this.#sandbox = sandbox;
    this.#marker = marker;
    this.#startSequence = startSequence;
    this.#readySeen = new Promise<void>((resolve, reject) => {
      this.#ready = { resolve, reject };
    });
    this.#readySeen.catch(() => {});
  }

  get events(): AsyncIterable<TerminalEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        if (this.#iterated) throw invalidRequest("a terminal's events can be iterated once", {}, PROVIDER);
        this.#iterated = true;
        return this.#queue[Symbol.asyncIterator]();
      },
    };
  }

  /** The shell runs as `pid`: the run budget starts. */
  started(pid: number, timeoutMs: number, maxOutputBytes: number): void {
    this.#pid = pid;
    this.#startedAt = performance.now();
    this.#maxOutputBytes = maxOutputBytes;
    this.#timer = setTimeout(() => void this.#stop("timedOut"), timeoutMs);
  }

  /** Resolves once the program runs (its start sequence arrived); rejects when the shell ended first or `signal` fires. */
  running(signal: AbortSignal): Promise<void> {
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(signal.reason);
      if (signal.aborted) fail();
      else signal.addEventListener("abort", fail, { once: true });
    });
    aborted.catch(() => {});
    return Promise.race([this.#readySeen, aborted]);
  }

  /** Bytes from envd: before the start sequence they are the shell's and dropped; after it, the program's. */
  data(bytes: Uint8Array): void {
    if (this.#preamble !== undefined) {
      const seen = Buffer.concat([this.#preamble, bytes]);
      const at = seen.indexOf(this.#startSequence);
      if (at < 0) {
        this.#preamble = seen.subarray(Math.max(0, seen.length - this.#startSequence.length));
        if (seen.length > MAX_PREAMBLE_BYTES) this.#ready?.reject(this.#failure("the shell never started the program"));
        return;
      }
      this.#preamble = undefined;
      this.#ready?.resolve();
      bytes = seen.subarray(at + this.#startSequence.length);
    }
    if (bytes.byteLength === 0 || this.#stopped === "truncated") return;
    const room = this.#maxOutputBytes - this.#outputBytes;
    const kept = bytes.byteLength > room ? bytes.subarray(0, room) : bytes;
    this.#outputBytes += kept.byteLength;
    if (kept.byteLength > 0) this.#queue.push({ type: "output", bytes: Uint8Array.from(kept) });
    if (bytes.byteLength > room) void this.#stop("truncated");
  }

  /** The terminal's process ended (`exitCode` null when killed or signalled). */
  finish(exitCode: number | null, error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#ready?.reject(this.#failure("the shell ended before the program started", error));
    this.#queue.push({
      type: "exited",
      exitCode: this.#stopped === undefined ? exitCode : null,
      signal: null,
      timedOut: this.#stopped === "timedOut",
      truncated: this.#stopped === "truncated",
      durationMs: performance.now() - this.#startedAt,
    });
    this.#queue.end();
  }

  async write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      throw invalidRequest("terminal data must be a string or Uint8Array", {}, PROVIDER);
    }
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    await this.#envd("write", (pid, options) => this.#sandbox.pty.sendInput(pid, bytes, options));
  }

  async resize(cols: number, rows: number): Promise<void> {
    const size = validateTerminalSize(cols, rows, PROVIDER);
    await this.#envd("resize", (pid, options) => this.#sandbox.pty.resize(pid, size, options));
  }

  async kill(signal?: TerminalSignal): Promise<void> {
    const checked = validateTerminalSignal(signal, PROVIDER);
    if (checked !== "SIGKILL") {
      throw new SandportError({
        code: "UNSUPPORTED",
        provider: PROVIDER,
        retryable: false,
        message: `e2b signals a terminal's process only with SIGKILL, not ${checked}; write "\\u0003" to interrupt its foreground job`,
        details: { feature: `kill(${checked})` },
      });
    }
    await this.#stop("killed");
  }

  /** Kills the whole tree once (the terminal's process, and through the marker what it started). */
  async #stop(why: "timedOut" | "truncated" | "killed"): Promise<void> {
    if (this.#ended || this.#stopped !== undefined) return;
    this.#stopped = why;
    await killProcessTree(this.#sandbox, this.#pid, this.#marker);
  }

  /** One envd call about the running terminal within `lookupMs`; `NOT_FOUND` once it has ended. */
  #envd(
    operation: string,
    request: (pid: number, options: { requestTimeoutMs: number; signal: AbortSignal }) => Promise<unknown>,
  ): Promise<void> {
    const pid = this.#pid;
    if (this.#ended || pid === undefined) return Promise.reject(processExited(PROVIDER));
    const site = { operation, sandboxId: this.#sandbox.sandboxId };
    return this.#context
      .run(undefined, site, this.#context.options.timeouts.lookupMs, (call) =>
        request(pid, { requestTimeoutMs: call.remainingMs(), signal: call.signal }),
      )
      .then(
        () => undefined,
        (error: unknown) => {
          throw this.#ended || SandportError.hasCode(error, "NOT_FOUND") ? processExited(PROVIDER, error) : error;
        },
      );
  }

  #failure(message: string, cause?: unknown): SandportError {
    return new SandportError({
      code: "UNEXPECTED",
      provider: PROVIDER,
      message: `could not open a terminal: ${message}`,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}
