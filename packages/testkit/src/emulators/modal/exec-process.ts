import { startSignal } from "../harness/command-table.js";
import { GrpcError } from "./grpc-status.js";
import { OutputLog } from "./output-log.js";

/** How an exec ended, as `TaskExecWait` / `TaskExecPoll` report it: an exit code or a signal. */
export type ExitStatus = { readonly code: number } | { readonly signal: number };

/** SIGKILL: how a killed or timed-out exec ends. */
export const KILLED: ExitStatus = { signal: 9 };

/** What an exec's program gets to work with. */
export interface ExecIo {
  readonly stdout: OutputLog;
  readonly stderr: OutputLog;
  /** Standard input as the client streams it; see {@link ExecStdin}. */
  readonly stdin: ExecStdin;
  /** Aborted when the exec is killed. */
  readonly signal: AbortSignal;
  /** Resolve once the program is running (or reject if it could not start). */
  started(): void;
}

/** The body of an exec: runs it and resolves how it ended. */
export type ExecProgram = (io: ExecIo) => Promise<ExitStatus>;

/** Where a command's standard input goes once it runs (the backend process's stdin). */
export interface StdinSink {
  /** Hands bytes on, in order; rejects once the command's stdin is gone. */
  write(bytes: Uint8Array): Promise<void>;
  /** End of file. */
  close(): Promise<void>;
}

/**
 * Standard input of one exec, as written through `TaskExecStdinWrite` and
 * `TaskExecStdinWriteStream`.
 *
 * A program the emulator runs itself (the filesystem helper) reads it whole
 * (`readAll`). A command started through the backend's `spawn` gets it
 * forwarded (`forwardTo`): bytes written before the command runs are kept
 * and handed on first, later writes resolve once the backend took them, and
 * end-of-file closes the command's stdin. An exec that accepts no stdin (a
 * backend without `spawn`, see `interactive.ts`) has it closed from the start:
 * an end-of-file alone is accepted (it changes nothing), bytes are refused.
 */
export class ExecStdin {
  readonly accepting: boolean;
  readonly #chunks: Buffer[] = [];
  #written = 0;
  #closed: boolean;
  readonly #closedWaiters: (() => void)[] = [];
  #sink: StdinSink | undefined;
  /** The forwarding so far: each write and the close wait for the ones before them. */
  #forwarded: Promise<void> = Promise.resolve();

  constructor(accepting: boolean) {
    this.accepting = accepting;
    this.#closed = !accepting;
  }

  /** Bytes accepted so far (the resume offset `TaskExecStdinStatus` reports). */
  get written(): number {
    return this.#written;
  }

  /** True once end-of-file was received (always, for an exec that accepts no stdin). */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Take bytes at `offset`. A repeated write (offset below what was taken) is
   * accepted for its new part only, as after a resumed stream. Resolves once
   * the bytes are kept, or, while forwarding, handed on to the command.
   */
  write(offset: number, data: Uint8Array, eof: boolean): Promise<void> {
    const before = this.#forwarded;
    if (data.length > 0) {
      if (!this.accepting) throw new GrpcError("UNIMPLEMENTED", "stdin to a running command is not emulated");
      if (this.#closed) throw new GrpcError("FAILED_PRECONDITION", "stdin is already closed");
      if (offset > this.#written) {
        throw new GrpcError("OUT_OF_RANGE", `stdin offset ${offset} is past the ${this.#written} bytes written`);
      }
      const fresh = data.subarray(this.#written - offset);
      if (fresh.length > 0) {
        this.#written += fresh.length;
        const chunk = Buffer.from(fresh);
        const sink = this.#sink;
        if (sink) this.#forward(() => sink.write(chunk));
        else this.#chunks.push(chunk);
      }
    }
    if (eof) this.close();
    return this.#forwarded === before ? Promise.resolve() : this.#forwarded;
  }

  /** End of file. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const sink = this.#sink;
    if (sink) this.#forward(() => sink.close());
    for (const waiter of this.#closedWaiters.splice(0)) waiter();
  }

  /**
   * Forward to a running command from now on: the bytes kept so far first,
   * then every write; a close already received closes its stdin.
   */
  forwardTo(sink: StdinSink): void {
    if (!this.accepting || this.#sink) return;
    this.#sink = sink;
    for (const chunk of this.#chunks.splice(0)) this.#forward(() => sink.write(chunk));
    if (this.#closed) this.#forward(() => sink.close());
  }

  /** Every byte, once stdin is closed; rejects when `signal` aborts first. */
  async readAll(signal: AbortSignal): Promise<Buffer> {
    if (!this.#closed) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        this.#closedWaiters.push(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
    return Buffer.concat(this.#chunks);
  }

  #forward(step: () => Promise<void>): void {
    // A failed step fails the write that asked for it; later ones still run (and fail on their own).
    const next = this.#forwarded.catch(() => undefined).then(step);
    next.catch(() => undefined);
    this.#forwarded = next;
  }
}

/** One exec started through `TaskExecStart`. */
export class ExecProcess {
  readonly execId: string;
  /** `commandArgs` as the client sent them, to recognise a retried start. */
  readonly argv: readonly string[];
  readonly stdout = new OutputLog();
  readonly stderr = new OutputLog();
  readonly stdin: ExecStdin;
  /** Resolves with the exit status (never rejects). */
  readonly done: Promise<ExitStatus>;
  /** Resolves once running; rejects when the program could not start. */
  readonly started: Promise<void>;
  readonly #abort = new AbortController();
  #exit: ExitStatus | undefined;

  constructor(execId: string, argv: readonly string[], acceptsStdin: boolean, program: ExecProgram) {
    this.execId = execId;
    this.argv = argv;
    this.stdin = new ExecStdin(acceptsStdin);
    const start = startSignal();
    this.started = start.started;
    const io: ExecIo = {
      stdout: this.stdout,
      stderr: this.stderr,
      stdin: this.stdin,
      signal: this.#abort.signal,
      started: start.resolve,
    };
    this.done = program(io).then(
      (status) => status,
      (error: unknown) => {
        start.reject(error);
        return KILLED;
      },
    );
    void this.done.then((status) => {
      this.#exit = status;
      start.resolve();
      this.stdout.close();
      this.stderr.close();
      this.stdin.close();
    });
  }

  /** The exit status once ended, else `undefined`. */
  get exit(): ExitStatus | undefined {
    return this.#exit;
  }

  /** Kill the exec (its whole process tree on the backend). */
  kill(): void {
    this.#abort.abort(new Error("killed"));
  }
}
