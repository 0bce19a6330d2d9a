import { type ExecEvent, type ExecResult, invalidRequest, SandportError } from "@sandport/core";
import { ByteOutputCollector, markerSweepScript, processExited } from "@sandport/core/adapter";
import { budget, type CallTiming } from "./context.js";
import { grpcCodeOf, mapModalError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import { inScope } from "./internal/call-scope.js";
import type { ModalContainerProcess, ModalReadStream, ModalSandbox } from "./internal/sdk-types.js";
import { EXEC_MARKER_ENV } from "./markers.js";

/** How long a kill (the marker sweep) may take. */
const KILL_TIMEOUT_MS = 10_000;
/** Slack on the server-side timeout, so the adapter's own kill at `timeoutMs` comes first. */
const SERVER_TIMEOUT_SLACK_MS = 1_000;

/** A validated command, ready to start. */
export interface CommandPlan {
  /** The program and its arguments (a shell script runs as `sh -c <script>`). */
  readonly argv: readonly string[];
  /** Absolute working directory inside the sandbox. */
  readonly cwd: string;
  /** Per-command environment, {@link EXEC_MARKER_ENV} included. */
  readonly env: Readonly<Record<string, string>>;
  /** Value of {@link EXEC_MARKER_ENV} for this command: how a kill finds its process tree. */
  readonly marker: string;
  /** Run budget in ms; the command is killed after it (`timedOut`). */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
  /** Bytes for stdin, written first; then stdin is closed, unless `interactive`. */
  readonly stdin?: Uint8Array;
  /** True for `spawn`: stdin stays open for {@link CommandRun.write}. */
  readonly interactive: boolean;
}

/** Why the adapter stopped a command. */
type StopReason = "timeout" | "output-limit" | "aborted" | "killed";

/**
 * One command running in a sandbox: started with the SDK's `exec` in binary
 * mode with a server-side timeout, its stdout and stderr read as they arrive,
 * its stdin written (and, unless interactive, closed at once), its exit
 * awaited. Modal has no call that kills an exec, so a kill (timeout, output
 * cap, abort, `kill()`) runs the kit's marker sweep as a second exec; the
 * server-side timeout (the run budget plus a second) ends a command whose
 * sweep failed. Shared by `exec`, `execStream` and `spawn`.
 */
export class CommandRun {
  /** The result once the command ended; rejects when its output or exit was lost. */
  readonly result: Promise<ExecResult>;
  readonly #sandbox: ModalSandbox;
  readonly #plan: CommandPlan;
  readonly #process: ModalContainerProcess;
  readonly #output: ByteOutputCollector;
  readonly #started = performance.now();
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #stopReason: StopReason | undefined;
  #killing: Promise<void> | undefined;
  #stdinClosed = false;
  #exited = false;

  private constructor(
    sandbox: ModalSandbox,
    plan: CommandPlan,
    process: ModalContainerProcess,
    emit: ((event: ExecEvent) => void) | undefined,
  ) {
    this.#sandbox = sandbox;
    this.#plan = plan;
    this.#process = process;
    this.#writer = process.stdin.getWriter();
    this.#output = new ByteOutputCollector(plan.maxOutputBytes, emit, () => void this.kill("output-limit"));
    // The run outlives the port call that started it (spawn): its control-plane calls get their own budget.
    this.result = inScope(budget(plan.timeoutMs + KILL_TIMEOUT_MS + SERVER_TIMEOUT_SLACK_MS), () => this.#run());
    this.result.catch(() => undefined);
  }

  /**
   * Starts `plan` in `sandbox`; resolves once Modal accepted the exec, having
   * emitted `started`. A start that lands after `signal` fired is killed at once.
   */
  static async start(
    sandbox: ModalSandbox,
    plan: CommandPlan,
    options: { readonly emit?: (event: ExecEvent) => void; readonly signal?: AbortSignal } = {},
  ): Promise<CommandRun> {
    const process = await sandbox.exec([...plan.argv], {
      mode: "binary",
      stdout: "pipe",
      stderr: "pipe",
      workdir: plan.cwd,
      env: { ...plan.env },
      timeoutMs: Math.ceil(plan.timeoutMs / 1000) * 1000 + SERVER_TIMEOUT_SLACK_MS,
    });
    options.emit?.({ type: "started" });
    const run = new CommandRun(sandbox, plan, process, options.emit);
    const { signal } = options;
    if (signal) {
      const onAbort = () => void run.kill("aborted");
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener("abort", onAbort, { once: true });
        void run.result.finally(() => signal.removeEventListener("abort", onAbort)).catch(() => undefined);
      }
    }
    return run;
  }

  /**
   * Writes to stdin (interactive runs): `INVALID_REQUEST` after `closeStdin`,
   * `NOT_FOUND` once the command has ended (its stdin is gone).
   */
  async write(data: Uint8Array): Promise<void> {
    if (this.#stdinClosed) throw invalidRequest("stdin was closed", {}, PROVIDER);
    if (this.#exited) throw processExited(PROVIDER);
    try {
      await this.#writer.write(data);
    } catch (error) {
      const code = grpcCodeOf(error);
      if (this.#exited || code === 5 || code === 9) throw processExited(PROVIDER, error);
      throw mapModalError(error, { operation: "write", sandboxId: this.#sandbox.sandboxId });
    }
  }

  /** Sends end-of-file; idempotent, also after the command ended. */
  async closeStdin(): Promise<void> {
    if (this.#stdinClosed) return;
    this.#stdinClosed = true;
    await this.#writer.close().catch((error: unknown) => {
      if (!this.#exited && ![5, 9].includes(grpcCodeOf(error) ?? -1)) {
        throw mapModalError(error, { operation: "closeStdin", sandboxId: this.#sandbox.sandboxId });
      }
    });
  }

  /**
   * Kills the command and everything it started (best effort, within 10 s):
   * the result then reports `exitCode: null`. Idempotent.
   */
  kill(reason: StopReason): Promise<void> {
    this.#stopReason ??= reason;
    if (this.#exited) return Promise.resolve();
    this.#killing ??= sweep(this.#sandbox, this.#plan, budget(KILL_TIMEOUT_MS));
    return this.#killing;
  }

  async #run(): Promise<ExecResult> {
    const timer = setTimeout(() => void this.kill("timeout"), this.#plan.timeoutMs);
    const reading = Promise.all([
      this.#pump("stdout", this.#process.stdout),
      this.#pump("stderr", this.#process.stderr),
    ]);
    reading.catch(() => undefined);
    void this.#feedStdin();
    try {
      const code = await this.#process.wait().catch(async (error: unknown) => {
        if (this.#stopReason !== undefined || this.#ranOut()) return null;
        await this.kill("aborted");
        throw lostOutput(this.#sandbox.sandboxId, error);
      });
      await reading.catch((error: unknown) => {
        if (this.#stopReason === undefined) throw lostOutput(this.#sandbox.sandboxId, error);
      });
      this.#output.finish();
      const stopped = this.#stopReason !== undefined || code === null;
      return {
        exitCode: stopped ? null : code,
        stdout: this.#output.stdout,
        stderr: this.#output.stderr,
        truncated: this.#output.truncated,
        timedOut: this.#stopReason === "timeout" || (this.#stopReason === undefined && code === null),
        durationMs: performance.now() - this.#started,
      };
    } finally {
      clearTimeout(timer);
      this.#exited = true;
    }
  }

  /** Reads one output stream to its end, into the collector. */
  async #pump(stream: "stdout" | "stderr", source: ModalReadStream): Promise<void> {
    const reader = source.getReader();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        this.#output.push(stream, chunk.value);
      }
    } finally {
      reader.releaseLock();
    }
  }

  /**
   * The plan's stdin bytes, then (unless interactive) end-of-file. A command
   * that ended first just never read them.
   */
  async #feedStdin(): Promise<void> {
    const { stdin, interactive } = this.#plan;
    if (!interactive) this.#stdinClosed = true;
    try {
      if (stdin !== undefined && stdin.byteLength > 0) await this.#writer.write(stdin);
      if (!interactive) await this.#writer.close();
    } catch {
      // As a closed pipe: what the command did not read is lost, and its exit says what happened.
    }
  }

  /** True once the run budget is spent (the server-side timeout may have ended the command). */
  #ranOut(): boolean {
    return performance.now() - this.#started >= this.#plan.timeoutMs;
  }
}

/**
 * Best-effort kill of a command's process tree: the kit's marker sweep
 * (SIGKILL to every process carrying the command's marker), as one exec.
 * Failures are swallowed: the command's server-side timeout still ends it.
 */
async function sweep(sandbox: ModalSandbox, plan: CommandPlan, timing: CallTiming): Promise<void> {
  await inScope(timing, async () => {
    const killing = (async () => {
      const killer = await sandbox.exec(["sh", "-c", markerSweepScript(EXEC_MARKER_ENV, plan.marker)], {
        mode: "binary",
        stdout: "pipe",
        stderr: "pipe",
        workdir: plan.cwd,
        env: {},
        timeoutMs: KILL_TIMEOUT_MS,
      });
      await killer.stdin.getWriter().close();
      await killer.wait();
    })();
    const expired = new Promise<void>((resolve) => setTimeout(resolve, timing.remainingMs()).unref());
    await Promise.race([killing, expired]);
  }).catch(() => undefined);
}

function lostOutput(sandboxId: string, error: unknown): SandportError {
  const mapped = mapModalError(error, { operation: "exec", sandboxId });
  return new SandportError({
    code: mapped.code === "NOT_FOUND" ? "NOT_FOUND" : "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `modal lost a running command's output or exit in sandbox ${sandboxId} (it was stopped; its effects are unknown)`,
    details: { sandboxId, outcomeUnknown: true },
  });
}
