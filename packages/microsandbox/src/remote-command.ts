import { type ExecEvent, type ExecResult, SandportError } from "@sandport/core";
import { ByteOutputCollector, markerSweepScript } from "@sandport/core/adapter";
import { mapMicrosandboxError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { MsbExecEvent, MsbExecHandle, MsbExecSink, MsbSandbox } from "./internal/sdk-types.js";
import { EXEC_MARKER_ENV } from "./markers.js";

/** Largest piece of stdin sent in one `core.exec.stdin` message (agentd's frames hold 4 MiB). */
const STDIN_CHUNK_BYTES = 1024 * 1024;
/** How long the best-effort sweep of a killed command's descendants may take. */
const SWEEP_TIMEOUT_MS = 5_000;

/** A validated command, ready to send. */
export interface CommandPlan {
  /** The program: `argv[0]`, or `/bin/sh` for a shell script. */
  readonly cmd: string;
  readonly args: readonly string[];
  /** Absolute working directory inside the sandbox. */
  readonly cwd: string;
  /** The whole environment sent: launch env, then the request's, then {@link EXEC_MARKER_ENV}. */
  readonly env: Readonly<Record<string, string>>;
  /** Value of {@link EXEC_MARKER_ENV} for this command. */
  readonly marker: string;
  /** Run budget in ms, enforced here (the SDK's own exec timeout is not used). */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
}

/** Why the adapter stopped a command; its result then has `exitCode: null`. */
type StopReason = "timeout" | "output-limit" | "aborted" | "killed" | "lost";

/**
 * One command running in a sandbox through an SDK exec handle, with stdin as
 * a pipe: its events (raw output bytes through the output cap), its run
 * budget, and a kill that also ends its descendants. Shared by `exec`,
 * `execStream` and `spawn`.
 */
export class RemoteCommand {
  /**
   * The command's result once it has ended: exits, timeouts, kills and the
   * output cap are results. Rejects when the agent connection broke while it
   * ran (`PROVIDER_UNAVAILABLE`, the command killed, its effects unknown).
   */
  readonly result: Promise<ExecResult>;
  readonly #sandbox: MsbSandbox;
  readonly #name: string;
  readonly #plan: CommandPlan;
  readonly #handle: MsbExecHandle;
  readonly #sink: MsbExecSink | null;
  readonly #emit: ((event: ExecEvent) => void) | undefined;
  readonly #output: ByteOutputCollector;
  readonly #began = performance.now();
  readonly #started: Promise<void>;
  #markStarted: () => void = () => {};
  #announced = false;
  #stopReason: StopReason | undefined;
  #killing: Promise<void> | undefined;
  #stdinClosed = false;
  #ended = false;

  private constructor(
    sandbox: MsbSandbox,
    name: string,
    plan: CommandPlan,
    handle: MsbExecHandle,
    sink: MsbExecSink | null,
    emit: ((event: ExecEvent) => void) | undefined,
  ) {
    this.#sandbox = sandbox;
    this.#name = name;
    this.#plan = plan;
    this.#handle = handle;
    this.#sink = sink;
    this.#emit = emit;
    this.#output = new ByteOutputCollector(
      plan.maxOutputBytes,
      (event) => {
        this.#announce(undefined);
        emit?.(event);
      },
      () => void this.kill("output-limit"),
    );
    this.#started = new Promise<void>((resolve) => {
      this.#markStarted = resolve;
    });
    this.result = this.#run();
    // Observed by the caller; a caller that only reads events must not see an unhandled rejection.
    this.result.catch(() => {});
  }

  /**
   * Starts `plan` in `sandbox` (one agent connection) and resolves once the
   * command runs; `emit` receives `started` and output events as they come.
   * A command that could not start (missing working directory or program)
   * rejects with the agent's reason.
   */
  static async start(
    sandbox: MsbSandbox,
    name: string,
    plan: CommandPlan,
    emit?: (event: ExecEvent) => void,
  ): Promise<RemoteCommand> {
    let handle: MsbExecHandle;
    let sink: MsbExecSink | null;
    try {
      handle = await sandbox.execStreamWith(plan.cmd, (options) =>
        options
          .args([...plan.args])
          .cwd(plan.cwd)
          .envs({ ...plan.env })
          .stdinPipe(),
      );
      sink = await handle.takeStdin();
    } catch (error) {
      throw mapMicrosandboxError(error, { operation: "exec", sandboxId: name });
    }
    const command = new RemoteCommand(sandbox, name, plan, handle, sink, emit);
    await Promise.race([command.#started, command.result]);
    return command;
  }

  /** True once the command has ended (its stdin is gone). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Writes to the command's stdin in pieces the agent takes. */
  async write(data: Uint8Array): Promise<void> {
    const sink = this.#requireSink();
    for (let offset = 0; offset < data.length; offset += STDIN_CHUNK_BYTES) {
      await sink.write(data.subarray(offset, offset + STDIN_CHUNK_BYTES));
    }
  }

  /** Closes stdin (EOF). Idempotent. */
  async closeStdin(): Promise<void> {
    if (this.#stdinClosed) return;
    this.#stdinClosed = true;
    await this.#requireSink().close();
  }

  /**
   * Kills the command (`core.exec.signal` 9) and, by the marker its
   * descendants inherit, everything it started. Idempotent; the result then
   * reports `exitCode: null` (and `timedOut` when `reason` is `"timeout"`).
   */
  kill(reason: StopReason = "killed"): Promise<void> {
    if (this.#ended) return Promise.resolve();
    this.#stopReason ??= reason;
    this.#killing ??= (async () => {
      await this.#handle.kill().catch(() => undefined);
      await sweep(this.#sandbox, this.#plan.marker);
    })();
    return this.#killing;
  }

  #requireSink(): MsbExecSink {
    if (!this.#sink) {
      throw new SandportError({
        code: "UNEXPECTED",
        provider: PROVIDER,
        retryable: false,
        message: `microsandbox gave no stdin for a command in sandbox ${this.#name}`,
        details: { sandboxId: this.#name },
      });
    }
    return this.#sink;
  }

  #announce(pid: number | undefined): void {
    if (this.#announced) return;
    this.#announced = true;
    this.#emit?.(pid === undefined ? { type: "started" } : { type: "started", pid });
    this.#markStarted();
  }

  async #run(): Promise<ExecResult> {
    const timer = setTimeout(() => void this.kill("timeout"), this.#plan.timeoutMs);
    let exitCode: number | undefined;
    let broken: unknown;
    try {
      for await (const event of this.#handle as AsyncIterable<MsbExecEvent | undefined>) {
        if (event === undefined) {
          // Before `started`, that is agentd's `core.exec.failed`: nothing ran (the SDK drops its reason).
          if (!this.#announced) broken ??= new CommandNotStarted();
          // After it, a `core.exec.stdin.error` (stdin written to a command that closed it): nothing to relay.
          continue;
        }
        if (event.kind === "started") this.#announce(event.pid);
        else if (event.kind === "exited") exitCode = event.code;
        else this.#output.push(event.kind, event.data);
      }
    } catch (error) {
      broken = error;
    } finally {
      clearTimeout(timer);
    }
    if (exitCode !== undefined) this.#announce(undefined);
    this.#output.finish();
    if (!this.#announced && broken !== undefined) {
      // It never ran (a missing working directory or program).
      this.#ended = true;
      throw broken instanceof CommandNotStarted
        ? notStarted(this.#name, this.#plan)
        : mapMicrosandboxError(broken, { operation: "exec", sandboxId: this.#name });
    }
    if (this.#stopReason === undefined && exitCode === undefined) {
      // The connection broke while the command ran: it may still run, so stop it.
      await this.kill("lost");
      this.#ended = true;
      throw lostOutput(this.#name, broken);
    }
    if (this.#killing) await this.#killing;
    this.#ended = true;
    const stopped = this.#stopReason !== undefined && this.#stopReason !== "lost";
    return {
      exitCode: stopped ? null : (exitCode ?? null),
      stdout: this.#output.stdout,
      stderr: this.#output.stderr,
      truncated: this.#output.truncated,
      timedOut: this.#stopReason === "timeout",
      durationMs: performance.now() - this.#began,
    };
  }
}

/**
 * Best-effort kill of a command's descendants: the kit's marker sweep, run as
 * its own command. A command whose tree survives a failed sweep still ends
 * with the sandbox.
 */
async function sweep(sandbox: MsbSandbox, marker: string): Promise<void> {
  const work = (async () => {
    const handle = await sandbox.execStreamWith("/bin/sh", (options) =>
      options.args(["-c", markerSweepScript(EXEC_MARKER_ENV, marker)]).stdinPipe(),
    );
    await (await handle.takeStdin())?.close();
    for await (const _event of handle) {
      // Drained to the end: the sweep has finished.
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SWEEP_TIMEOUT_MS);
  });
  await Promise.race([work.catch(() => undefined), limit]);
  clearTimeout(timer);
}

/** Marks a stream whose first message was agentd's `core.exec.failed`. */
class CommandNotStarted extends Error {}

/**
 * The command never ran. microsandbox 0.6.18 hands a streamed command's
 * `core.exec.failed` over without its reason, so the usual ones are named:
 * agentd reports a missing program or working directory this way.
 */
function notStarted(name: string, plan: CommandPlan): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: PROVIDER,
    retryable: false,
    message:
      `microsandbox could not start ${JSON.stringify(plan.cmd)} in ${plan.cwd} (sandbox ${name}): ` +
      "the program or the working directory does not exist, most likely (the SDK does not pass on agentd's reason)",
    details: { sandboxId: name, cwd: plan.cwd, program: plan.cmd },
  });
}

function lostOutput(name: string, cause: unknown): SandportError {
  return new SandportError({
    code: "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    ...(cause === undefined ? {} : { cause }),
    message: `microsandbox lost the output of a running command in sandbox ${name} (it was stopped; its effects are unknown)`,
    details: { sandboxId: name, outcomeUnknown: true },
  });
}
