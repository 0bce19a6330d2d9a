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
import { EventQueue, processExited } from "@sandport/core/adapter";
import { planCommand } from "./command-plan.js";
import type { DaytonaContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaPtyHandle, DaytonaSandbox } from "./internal/sdk-types.js";
import { checkCwd } from "./session-run.js";

/** Where the program's script waits for the typed line (see {@link openTerminal}). */
const SCRIPT_VARIABLE = "SANDPORT_TERMINAL_SCRIPT";
/** The line typed into the daemon's shell: short and constant, so no terminal line limit applies and its echo says nothing. */
const TYPED_LINE = `exec /bin/sh -c "$${SCRIPT_VARIABLE}"\n`;
/** Most bytes the shell may show before the program starts (its login banner, prompt and echo). */
const MAX_PREAMBLE_BYTES = 1024 * 1024;
/** Largest `cols` or `rows` the daemon accepts: it refuses 1000 and more. */
const MAX_DAYTONA_CELLS = 999;

/**
 * `openTerminal` on Daytona. The SDK's `process.createPty` always starts the
 * sandbox user's shell (`$SHELL -i -l`) on a pseudo-terminal of the daemon;
 * the program replaces it: the request, planned as for `spawn` (argv quoted,
 * `shell` in `sh -c`, the kill marker in its env), waits in an environment
 * variable of the shell, and one constant line typed into the shell `exec`s
 * it after printing a one-time sequence (an OSC with a fresh id and the
 * process id). Everything the shell showed before that sequence (banner,
 * prompt, the echo of the typed line) is dropped; everything after is the
 * program's. `openTerminal` resolves once the sequence arrives.
 *
 * The run budget and the output cap are enforced here: the session is
 * deleted (`killPtySession`), which the daemon does by SIGKILLing the
 * program's process tree. `kill(signal)` other than SIGKILL goes to the
 * program's process group with one `executeCommand` (`kill -s`), as the
 * program is the terminal's session leader. The daemon reports an exit by a
 * signal as code -1 without naming it: the exit then has neither code nor signal.
 */
export async function openTerminal(
  context: DaytonaContext,
  handle: unknown,
  request: TerminalRequest,
  op?: OpOptions,
): Promise<Terminal> {
  const { workspaceRoot, timeouts } = context.options;
  const { size } = validateTerminalRequest(request, { root: workspaceRoot, provider: PROVIDER });
  if (size.cols > MAX_DAYTONA_CELLS || size.rows > MAX_DAYTONA_CELLS) {
    throw invalidRequest(`daytona terminals have at most ${MAX_DAYTONA_CELLS} columns and rows`, { ...size }, PROVIDER);
  }
  // The command part as spawn sees it: the plan validates and resolves it (cwd, env, limits).
  const { cols: _cols, rows: _rows, ...command } = request;
  const plan = planCommand(context.options, command, "interactive");
  const id = randomUUID();
  const script = `unset ${SCRIPT_VARIABLE}; printf '\\033]777;sandport;%s;%s\\007' ${id} "$$"; ${plan.command}`;
  return context.onInstance(handle, op, "openTerminal", timeouts.lookupMs, async (sandbox, call) => {
    const home = await context.homeOf(sandbox);
    if (plan.cwd !== home && plan.cwd !== workspaceRoot) await checkCwd(sandbox, plan, call);
    const sessionId = `sandport-terminal-${id}`;
    const terminal = new DaytonaTerminal(context, sandbox, sessionId, Buffer.from(`\u001b]777;sandport;${id};`));
    const killOnAbort = () => void terminal.kill();
    op?.signal?.addEventListener("abort", killOnAbort, { once: true });
    try {
      const pty = await sandbox.process.createPty({
        id: sessionId,
        cwd: plan.cwd,
        envs: { TERM: "xterm-256color", ...plan.env, [SCRIPT_VARIABLE]: script },
        cols: size.cols,
        rows: size.rows,
        onData: (bytes) => terminal.data(bytes),
      });
      terminal.started(pty, plan.timeoutMs, plan.maxOutputBytes);
      await pty.sendInput(TYPED_LINE);
      await terminal.running(call.signal);
    } catch (error) {
      await terminal.kill().catch(() => {});
      throw error;
    }
    return terminal;
  });
}

/** A Daytona terminal: output after the start sequence, writes over the PTY's WebSocket, kills through the daemon. */
class DaytonaTerminal implements Terminal {
  readonly #queue = new EventQueue<TerminalEvent>();
  readonly #context: DaytonaContext;
  readonly #sandbox: DaytonaSandbox;
  readonly #sessionId: string;
  readonly #startPrefix: Buffer;
  #preamble: Buffer | undefined = Buffer.alloc(0);
  #ready: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  readonly #readySeen: Promise<void>;
  #pty: DaytonaPtyHandle | undefined;
  /** The program's process id (the terminal's session leader), from the start sequence. */
  #pid: number | undefined;
  #startedAt = performance.now();
  #timer: NodeJS.Timeout | undefined;
  #maxOutputBytes = Number.POSITIVE_INFINITY;
  #outputBytes = 0;
  #stopped: "timedOut" | "truncated" | "killed" | undefined;
  #ended = false;
  #iterated = false;

  constructor(context: DaytonaContext, sandbox: DaytonaSandbox, sessionId: string, startPrefix: Buffer) {
    this.#context = context;
    this.#sandbox = sandbox;
    this.#sessionId = sessionId;
    this.#startPrefix = startPrefix;
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

  /** The shell runs on `pty`: the run budget starts, and its end is awaited. */
  started(pty: DaytonaPtyHandle, timeoutMs: number, maxOutputBytes: number): void {
    this.#pty = pty;
    this.#startedAt = performance.now();
    this.#maxOutputBytes = maxOutputBytes;
    this.#timer = setTimeout(() => void this.#stop("timedOut"), timeoutMs);
    pty.wait().then(
      (result) => this.#finish(result.exitCode, result.error),
      (error: unknown) => this.#finish(undefined, error),
    );
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

  /** Bytes from the daemon: before the start sequence they are the shell's and dropped; after it, the program's. */
  data(bytes: Uint8Array): void {
    if (this.#preamble !== undefined) {
      const seen = Buffer.concat([this.#preamble, bytes]);
      const at = seen.indexOf(this.#startPrefix);
      const end = at < 0 ? -1 : seen.indexOf(0x07, at + this.#startPrefix.length);
      if (end < 0) {
        // Keep what may be the start of the sequence (its prefix, a pid of up to 20 digits).
        this.#preamble = seen.subarray(Math.max(0, seen.length - this.#startPrefix.length - 21));
        if (seen.length > MAX_PREAMBLE_BYTES) this.#ready?.reject(this.#failure("the shell never started the program"));
        return;
      }
      const pid = Number(seen.subarray(at + this.#startPrefix.length, end).toString("latin1"));
      this.#pid = Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
      this.#preamble = undefined;
      this.#ready?.resolve();
      bytes = seen.subarray(end + 1);
    }
    if (bytes.byteLength === 0 || this.#stopped === "truncated") return;
    const room = this.#maxOutputBytes - this.#outputBytes;
    const kept = bytes.byteLength > room ? bytes.subarray(0, room) : bytes;
    this.#outputBytes += kept.byteLength;
    if (kept.byteLength > 0) this.#queue.push({ type: "output", bytes: Uint8Array.from(kept) });
    if (bytes.byteLength > room) void this.#stop("truncated");
  }

  async write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      throw invalidRequest("terminal data must be a string or Uint8Array", {}, PROVIDER);
    }
    const pty = this.#pty;
    if (this.#ended || !pty) throw processExited(PROVIDER);
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    try {
      await pty.sendInput(bytes);
    } catch (error) {
      // The SDK refuses once the socket is closed: the shell has ended, or is ending.
      throw processExited(PROVIDER, error);
    }
  }

  async resize(cols: number, rows: number): Promise<void> {
    const size = validateTerminalSize(cols, rows, PROVIDER);
    if (size.cols > MAX_DAYTONA_CELLS || size.rows > MAX_DAYTONA_CELLS) {
      throw invalidRequest(
        `daytona terminals have at most ${MAX_DAYTONA_CELLS} columns and rows`,
        { ...size },
        PROVIDER,
      );
    }
    const pty = this.#pty;
    if (this.#ended || !pty) throw processExited(PROVIDER);
    const site = { operation: "resize", sandboxId: this.#sandbox.id };
    await this.#context
      .run(undefined, site, this.#context.options.timeouts.lookupMs, () => pty.resize(size.cols, size.rows))
      .catch((error: unknown) => {
        throw this.#ended || SandportError.hasCode(error, "NOT_FOUND") ? processExited(PROVIDER, error) : error;
      });
  }

  async kill(signal?: TerminalSignal): Promise<void> {
    const checked = validateTerminalSignal(signal, PROVIDER);
    if (checked === "SIGKILL") {
      await this.#stop("killed");
      return;
    }
    const pid = this.#pid;
    if (this.#ended || pid === undefined) return;
    const site = { operation: "kill", sandboxId: this.#sandbox.id };
    // The program leads the terminal's session and its process group: the signal goes to the group.
    await this.#context.run(undefined, site, this.#context.options.timeouts.lookupMs, () =>
      this.#sandbox.process.executeCommand(`kill -s ${checked.slice(3)} -- -${pid} 2>/dev/null; true`),
    );
  }

  /** Deletes the session once: the daemon SIGKILLs the program and its descendants. */
  async #stop(why: "timedOut" | "truncated" | "killed"): Promise<void> {
    if (this.#ended || this.#stopped !== undefined) return;
    this.#stopped = why;
    const site = { operation: "kill", sandboxId: this.#sandbox.id };
    await this.#context
      .run(undefined, site, this.#context.options.timeouts.lookupMs, () =>
        this.#sandbox.process.killPtySession(this.#sessionId),
      )
      .catch((error: unknown) => {
        // Not found: the shell ended on its own meanwhile; its exit follows.
        if (!SandportError.hasCode(error, "NOT_FOUND")) throw error;
      });
  }

  /** The shell's session ended: its exit code as the daemon reported it (-1: ended by a signal). */
  #finish(exitCode: number | undefined, error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#ready?.reject(this.#failure("the shell ended before the program started", error));
    void this.#pty?.disconnect();
    const code = this.#stopped === undefined && exitCode !== undefined && exitCode >= 0 ? exitCode : null;
    this.#queue.push({
      type: "exited",
      exitCode: code,
      signal: null,
      timedOut: this.#stopped === "timedOut",
      truncated: this.#stopped === "truncated",
      durationMs: performance.now() - this.#startedAt,
    });
    this.#queue.end();
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
