import { randomUUID } from "node:crypto";
import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { Terminal, TerminalEvent, TerminalSignal, TerminalSize } from "../port/terminal.js";
import { EventQueue } from "../streams/event-queue.js";
import { validateTerminalSignal, validateTerminalSize } from "../validation/terminal-request.js";
import { commandResult, type StopReason, type VendorEnd } from "./command-engine.js";
import { processExited } from "./sandbox-errors.js";

/** Where the program's script waits for the typed line (see {@link shellTerminalPlan}). */
const SCRIPT_VARIABLE = "SANDPORT_TERMINAL_SCRIPT";
/** Most bytes the shell may show before the program starts (its login banner, prompt and echo). */
const MAX_PREAMBLE_BYTES = 1024 * 1024;
/** Longest tail of the start sequence after its id: `;` and a process id of up to 20 digits. */
const MAX_SEQUENCE_TAIL = 21;

/** How a program replaces the login shell a vendor's pty starts: see {@link shellTerminalPlan}. */
export interface ShellTerminalPlan {
  /** The variables to add to the shell's environment: the program's script waits in one. */
  readonly env: Readonly<Record<string, string>>;
  /** The one line to type into the shell: short and constant, so no terminal line limit applies and its echo says nothing. */
  readonly typedLine: string;
  /** The fresh id of this terminal (in its start sequence); a vendor may name its session after it. */
  readonly id: string;
  /** The start sequence up to its end: `ESC ] 777;sandport;<id>`, then `;<pid>` with `reportPid`, then BEL. */
  readonly startPrefix: Uint8Array;
}

/**
 * Plans a terminal on a vendor pty that always starts a login shell: the
 * program's `command` (a `sh -c` string, planned as for exec) waits in an
 * environment variable of the shell, and the one constant typed line `exec`s
 * it after it prints a one-time sequence (an OSC with a fresh id and, with
 * `reportPid`, the program's process id). Everything the shell shows before
 * that sequence (banner, prompt, the echo of the typed line) is dropped by
 * {@link ShellTerminal}; everything after is the program's.
 */
export function shellTerminalPlan(command: string, options: { readonly reportPid?: boolean } = {}): ShellTerminalPlan {
  const id = randomUUID();
  const announce = options.reportPid
    ? `printf '\\033]777;sandport;%s;%s\\007' ${id} "$$"`
    : `printf '\\033]777;sandport;%s\\007' ${id}`;
  return {
    env: { [SCRIPT_VARIABLE]: `unset ${SCRIPT_VARIABLE}; ${announce}; ${command}` },
    typedLine: `exec /bin/sh -c "$${SCRIPT_VARIABLE}"\n`,
    id,
    startPrefix: Buffer.from(`\u001b]777;sandport;${id}`),
  };
}

/** What one adapter does for a {@link ShellTerminal}: its SDK calls, nothing else. */
export interface ShellTerminalVendor {
  /** Kills the terminal's program and its descendants (the run budget, the output cap, `kill()`, an abort). */
  stop(): Promise<void>;
  /** Sends bytes to the terminal. A `NOT_FOUND` rejection, or any once it ended, becomes `processExited`. */
  write(bytes: Uint8Array): Promise<void>;
  /** Resizes the terminal (size already valid). Rejections map as for {@link write}. */
  resize(size: TerminalSize): Promise<void>;
  /** Refuses a size the vendor does not take (after the port's own checks, before any call). */
  checkSize?(size: TerminalSize): void;
  /**
   * Sends `signal` (anything but SIGKILL, which is {@link stop}) to the
   * program; `pid` is the program's process id from the start sequence
   * (`undefined` when not reported, or once the terminal ended).
   */
  signal(signal: Exclude<TerminalSignal, "SIGKILL">, pid: number | undefined): Promise<void>;
}

/**
 * A terminal on a vendor pty's login shell, planned by {@link shellTerminalPlan}:
 * it drops the shell's output before the start sequence, holds the run budget
 * and the output cap (past either the vendor's `stop` kills the program), and
 * builds the `exited` event from the kit's stop reasons with
 * {@link commandResult}. The adapter feeds it `data` and `finish` from its SDK.
 */
export class ShellTerminal implements Terminal {
  readonly #queue = new EventQueue<TerminalEvent>();
  readonly #provider: string;
  readonly #vendor: ShellTerminalVendor;
  readonly #startPrefix: Buffer;
  #preamble: Buffer | undefined = Buffer.alloc(0);
  #ready: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  readonly #readySeen: Promise<void>;
  #programPid: number | undefined;
  #running = false;
  #startedAt = performance.now();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #maxOutputBytes = Number.POSITIVE_INFINITY;
  #outputBytes = 0;
  #stopReason: StopReason | undefined;
  #ended = false;
  #iterated = false;

  constructor(provider: string, plan: Pick<ShellTerminalPlan, "startPrefix">, vendor: ShellTerminalVendor) {
    this.#provider = provider;
    this.#vendor = vendor;
    this.#startPrefix = Buffer.from(plan.startPrefix);
    this.#readySeen = new Promise<void>((resolve, reject) => {
      this.#ready = { resolve, reject };
    });
    this.#readySeen.catch(() => {});
  }

  get events(): AsyncIterable<TerminalEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        if (this.#iterated) throw invalidRequest("a terminal's events can be iterated once", {}, this.#provider);
        this.#iterated = true;
        return this.#queue[Symbol.asyncIterator]();
      },
    };
  }

  /** The shell runs: the run budget starts. */
  started(timeoutMs: number, maxOutputBytes: number): void {
    this.#running = true;
    this.#startedAt = performance.now();
    this.#maxOutputBytes = maxOutputBytes;
    this.#timer = setTimeout(() => void this.#stop("timeout"), timeoutMs);
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

  /** Bytes from the pty: before the start sequence they are the shell's and dropped; after it, the program's. */
  data(bytes: Uint8Array): void {
    if (this.#preamble !== undefined) {
      const seen = Buffer.concat([this.#preamble, bytes]);
      const at = seen.indexOf(this.#startPrefix);
      const end = at < 0 ? -1 : seen.indexOf(0x07, at + this.#startPrefix.length);
      if (end < 0) {
        // Keep what may be the start of the sequence (its prefix and tail).
        this.#preamble = seen.subarray(Math.max(0, seen.length - this.#startPrefix.length - MAX_SEQUENCE_TAIL));
        if (seen.length > MAX_PREAMBLE_BYTES) this.#ready?.reject(this.#failure("the shell never started the program"));
        return;
      }
      const tail = seen.subarray(at + this.#startPrefix.length, end).toString("latin1");
      const pid = tail.startsWith(";") ? Number(tail.slice(1)) : Number.NaN;
      this.#programPid = Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
      this.#preamble = undefined;
      this.#ready?.resolve();
      bytes = seen.subarray(end + 1);
    }
    if (bytes.byteLength === 0 || this.#stopReason === "output-limit") return;
    const room = this.#maxOutputBytes - this.#outputBytes;
    const kept = bytes.byteLength > room ? bytes.subarray(0, room) : bytes;
    this.#outputBytes += kept.byteLength;
    if (kept.byteLength > 0) this.#queue.push({ type: "output", bytes: Uint8Array.from(kept) });
    if (bytes.byteLength > room) void this.#stop("output-limit");
  }

  /**
   * The shell's process ended, as the vendor reports it (`error`: why it
   * ended, for the open call when the program never started). The `exited`
   * event follows the kit's rule ({@link commandResult}): any stop means no code.
   */
  finish(end: VendorEnd, error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#ready?.reject(this.#failure("the shell ended before the program started", error));
    const truncated = this.#stopReason === "output-limit";
    const result = commandResult(
      {
        result: (exitCode, durationMs, timedOut = false) => ({
          exitCode,
          stdout: "",
          stderr: "",
          truncated,
          timedOut,
          durationMs,
        }),
      },
      end,
      this.#stopReason,
      performance.now() - this.#startedAt,
    );
    const { exitCode, timedOut, durationMs, limit } = result;
    this.#queue.push({
      type: "exited",
      exitCode,
      signal: null,
      timedOut,
      truncated,
      durationMs,
      ...(limit === undefined ? {} : { limit }),
    });
    this.#queue.end();
  }

  async write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      throw invalidRequest("terminal data must be a string or Uint8Array", {}, this.#provider);
    }
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    await this.#whileRunning(() => this.#vendor.write(bytes));
  }

  async resize(cols: number, rows: number): Promise<void> {
    const size = validateTerminalSize(cols, rows, this.#provider);
    this.#vendor.checkSize?.(size);
    await this.#whileRunning(() => this.#vendor.resize(size));
  }

  async kill(signal?: TerminalSignal): Promise<void> {
    const checked = validateTerminalSignal(signal, this.#provider);
    if (checked === "SIGKILL") return this.#stop("killed");
    await this.#vendor.signal(checked, this.#ended ? undefined : this.#programPid);
  }

  /** The caller's signal fired while the terminal ran: the program is stopped as for `kill()`. */
  abort(): Promise<void> {
    return this.#stop("aborted");
  }

  /** Stops the program once, for `why`: the vendor kills it and its descendants. */
  async #stop(why: StopReason): Promise<void> {
    if (this.#ended || this.#stopReason !== undefined) return;
    this.#stopReason = why;
    await this.#vendor.stop();
  }

  /** One vendor call about the running terminal; `processExited` before it started, once it ended, or on `NOT_FOUND`. */
  async #whileRunning(call: () => Promise<void>): Promise<void> {
    if (this.#ended || !this.#running) throw processExited(this.#provider);
    try {
      await call();
    } catch (error) {
      throw this.#ended || SandportError.hasCode(error, "NOT_FOUND") ? processExited(this.#provider, error) : error;
    }
  }

  #failure(message: string, cause?: unknown): SandportError {
    return new SandportError({
      code: "UNEXPECTED",
      provider: this.#provider,
      message: `could not open a terminal: ${message}`,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}
