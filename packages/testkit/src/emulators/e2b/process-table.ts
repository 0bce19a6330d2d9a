import type {
  ArgvExecRequest,
  ExecEvent,
  ExecResult,
  SandboxHandle,
  SandboxRuntime,
  Terminal,
  TerminalExitedEvent,
  TerminalSize,
} from "@sandport/core";
import { backendEvents } from "../harness/backend-events.js";
import { CommandTable, type StartSignal, startSignal } from "../harness/command-table.js";
import { RpcError } from "../harness/connect-rpc.js";
import { messageOf } from "./errors.js";
import { type ProcessStdin, SpawnedStdin } from "./process-stdin.js";
import { StdinPump } from "./stdin-pump.js";

/** A process's configuration as the client sent it (sandbox paths), reported back by `List`. */
export interface ProcessConfig {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly envs: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** envd's `ProcessEvent.EndEvent`, in proto3 JSON. */
export interface EndEvent {
  readonly exitCode: number;
  readonly exited: boolean;
  readonly status: string;
  readonly error?: string;
}

/** envd's `ProcessEvent`, in proto3 JSON (output bytes in base64). */
export type ProcessEvent =
  | { readonly start: { readonly pid: number } }
  | { readonly data: { readonly stdout?: string; readonly stderr?: string; readonly pty?: string } }
  | { readonly end: EndEvent };

export type ProcessListener = (event: ProcessEvent) => void;

/** What {@link ProcessTable.start} needs. */
export interface StartProcessOptions {
  readonly backend: SandboxRuntime;
  readonly handle: SandboxHandle;
  /** As the client sent it. */
  readonly config: ProcessConfig;
  /** What to run on the backend (paths mapped, environment merged, generous limits). */
  readonly request: ArgvExecRequest;
  readonly stdin: boolean;
  /** Start it on a terminal of this size (`StartRequest.pty`): the backend's `openTerminal`. */
  readonly pty?: TerminalSize;
  readonly tag?: string;
  /** First subscriber, attached before any event is emitted (the Start stream). */
  readonly listener: ProcessListener;
}

const KILLED: EndEvent = { exitCode: -1, exited: false, status: "signal: killed" };

/** One process started through `process.Process/Start`. */
export class EmulatedProcess {
  readonly pid: number;
  readonly tag: string | undefined;
  readonly config: ProcessConfig;
  /** Its standard input, when it was started with `stdin: true`. */
  readonly stdin: ProcessStdin | undefined;
  /** Resolves with the end event once the process has ended (never rejects). */
  readonly done: Promise<EndEvent>;
  /** Resolves once the backend started the process; rejects if it could not. */
  readonly started: Promise<void>;

  readonly #listeners = new Set<ProcessListener>();
  readonly #abort = new AbortController();
  #terminal: Terminal | undefined;
  #end: EndEvent | undefined;
  #killed = false;

  constructor(pid: number, options: StartProcessOptions, stdin: ProcessStdin | undefined) {
    this.pid = pid;
    this.tag = options.tag;
    this.config = options.config;
    this.stdin = stdin;
    this.#listeners.add(options.listener);
    const start = startSignal();
    this.started = start.started;
    this.done = this.#run(options, start);
  }

  /** True until the process has ended. */
  get running(): boolean {
    return this.#end === undefined;
  }

  /** True once a kill was requested (the process may take a moment to end). */
  get killed(): boolean {
    return this.#killed;
  }

  /** Receive events from now on. Returns the unsubscribe function. */
  subscribe(listener: ProcessListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True when it was started on a terminal (`StartRequest.pty`). */
  get pty(): boolean {
    return this.#terminal !== undefined;
  }

  /** Types into its terminal (`ProcessInput.pty`); `failed_precondition` when it has none. */
  async writePty(bytes: Uint8Array): Promise<void> {
    await this.#requireTerminal().write(bytes);
  }

  /** Resizes its terminal (`UpdateRequest.pty.size`); `failed_precondition` when it has none. */
  async resize(size: TerminalSize): Promise<void> {
    await this.#requireTerminal().resize(size.cols, size.rows);
  }

  #requireTerminal(): Terminal {
    if (this.#terminal === undefined || this.#end !== undefined) {
      throw new RpcError("failed_precondition", `process ${this.pid} has no terminal`);
    }
    return this.#terminal;
  }

  /** Kill the process tree (SIGTERM and SIGKILL alike: the port kills by aborting). */
  kill(): void {
    if (this.#end !== undefined) return;
    this.#killed = true;
    this.#abort.abort(new Error("killed"));
  }

  #emit(event: ProcessEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }

  async #run(options: StartProcessOptions, start: StartSignal): Promise<EndEvent> {
    if (options.pty) return this.#runTerminal(options, options.pty, start);
    let sawStart = false;
    const markStarted = () => {
      if (sawStart) return;
      sawStart = true;
      this.#emit({ start: { pid: this.pid } });
      start.resolve();
    };
    let end: EndEvent;
    try {
      let result: ExecResult | undefined;
      for await (const event of this.#events(options)) {
        if (event.type === "started") markStarted();
        else if (event.type === "exited") result = event.result;
        else if (event.bytes.length > 0) {
          markStarted();
          // The bytes the command wrote where the backend has them (binaryOutput), else its text's UTF-8.
          const bytes = Buffer.from(event.bytes).toString("base64");
          this.#emit({ data: event.type === "stdout" ? { stdout: bytes } : { stderr: bytes } });
        }
      }
      markStarted();
      end = endFromResult(result, this.#killed);
    } catch (error) {
      if (!sawStart && !this.#killed) {
        start.reject(error);
        this.#end = { exitCode: -1, exited: false, status: "error", error: messageOf(error) };
        this.#listeners.clear();
        await this.stdin?.dispose();
        return this.#end;
      }
      markStarted();
      end = this.#killed ? KILLED : { exitCode: -1, exited: false, status: "error", error: messageOf(error) };
    }
    this.#end = end;
    await this.stdin?.dispose();
    this.#emit({ end });
    this.#listeners.clear();
    return end;
  }

  /** A process on a terminal: the backend's `openTerminal`, its bytes sent as `data.pty`. */
  async #runTerminal(options: StartProcessOptions, size: TerminalSize, start: StartSignal): Promise<EndEvent> {
    const { backend } = options;
    let end: EndEvent;
    try {
      if (!backend.openTerminal) throw new RpcError("unimplemented", "this emulator's backend has no terminals");
      const { argv, cwd, env, timeoutMs } = options.request;
      this.#terminal = await backend.openTerminal(
        options.handle,
        { argv, ...(cwd === undefined ? {} : { cwd }), ...(env === undefined ? {} : { env }), timeoutMs, ...size },
        { signal: this.#abort.signal },
      );
    } catch (error) {
      start.reject(error);
      this.#end = { exitCode: -1, exited: false, status: "error", error: messageOf(error) };
      this.#listeners.clear();
      return this.#end;
    }
    this.#emit({ start: { pid: this.pid } });
    start.resolve();
    try {
      let exited: TerminalExitedEvent | undefined;
      for await (const event of this.#terminal.events) {
        if (event.type === "exited") exited = event;
        else this.#emit({ data: { pty: Buffer.from(event.bytes).toString("base64") } });
      }
      end = endOfTerminal(exited, this.#killed);
    } catch (error) {
      end = this.#killed ? KILLED : { exitCode: -1, exited: false, status: "error", error: messageOf(error) };
    }
    this.#end = end;
    this.#emit({ end });
    this.#listeners.clear();
    return end;
  }

  #events(options: StartProcessOptions): AsyncIterable<ExecEvent> {
    const { backend } = options;
    if (this.stdin instanceof SpawnedStdin && backend.spawn) {
      return this.stdin.run(backend.spawn.bind(backend), options.handle, options.request, this.#abort.signal);
    }
    const op = { signal: this.#abort.signal, timeoutMs: options.request.timeoutMs };
    return backendEvents(options.backend, options.handle, options.request, op);
  }
}

function endFromResult(result: ExecResult | undefined, killed: boolean): EndEvent {
  if (result === undefined || result.exitCode === null) return KILLED;
  if (killed && result.exitCode !== 0) return KILLED;
  return { exitCode: result.exitCode, exited: true, status: `exit status ${result.exitCode}` };
}

/** Go's names for the signals a terminal's program may die of (`ProcessState.String()`: `signal: interrupt`). */
const GO_SIGNAL_NAMES: Readonly<Record<string, string>> = {
  SIGHUP: "hangup",
  SIGINT: "interrupt",
  SIGQUIT: "quit",
  SIGKILL: "killed",
  SIGUSR1: "user defined signal 1",
  SIGUSR2: "user defined signal 2",
  SIGTERM: "terminated",
};

function endOfTerminal(exited: TerminalExitedEvent | undefined, killed: boolean): EndEvent {
  if (exited === undefined || killed) return KILLED;
  if (exited.exitCode !== null) {
    return { exitCode: exited.exitCode, exited: true, status: `exit status ${exited.exitCode}` };
  }
  if (exited.signal !== null) {
    return { exitCode: -1, exited: false, status: `signal: ${GO_SIGNAL_NAMES[exited.signal] ?? exited.signal}` };
  }
  return KILLED;
}

/** The processes of one sandbox. */
export class ProcessTable {
  readonly #processes = new CommandTable<number, EmulatedProcess>({ firstPid: 1000 });

  /** Start a process; resolves once the backend has started it. */
  async start(options: StartProcessOptions): Promise<EmulatedProcess> {
    const pid = this.#processes.newPid();
    let stdin: ProcessStdin | undefined;
    let request = options.request;
    if (options.stdin && options.backend.spawn) stdin = new SpawnedStdin();
    else if (options.stdin) {
      const pump = await StdinPump.create(options.backend, options.handle, pid);
      request = pump.wrap(request, request.cwd);
      stdin = pump;
    }
    const process = new EmulatedProcess(pid, { ...options, request }, stdin);
    return this.#processes.admit(pid, process, process.started);
  }

  /** A running process (not being killed) by pid or tag. */
  find(selector: { readonly pid?: number; readonly tag?: string }): EmulatedProcess | undefined {
    return this.list().find((process) =>
      selector.pid !== undefined
        ? process.pid === selector.pid
        : selector.tag !== undefined && process.tag === selector.tag,
    );
  }

  /** Running processes; one being killed is already gone from the list, as envd's would be. */
  list(): EmulatedProcess[] {
    return this.#processes.list().filter((process) => !process.killed);
  }

  /** Kill every process and wait for them to end. */
  killAll(): Promise<void> {
    return this.#processes.killAll((process) => process.kill());
  }
}
