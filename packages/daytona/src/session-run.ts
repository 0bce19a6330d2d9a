import { randomUUID } from "node:crypto";
import { type ExecEvent, type ExecRequest, type ExecResult, retry, SandportError } from "@sandport/core";
import { assertCommandFits, OutputCollector } from "@sandport/core/adapter";
import { daemonCommand, requestCommand, sessionScript } from "./command-scripts.js";
import { budget, type CallTiming, type DaytonaContext } from "./context.js";
import { isNotFound, mapDaytonaError, statusOf, wasRefused } from "./errors.js";
import { type ExecPlan, START_RETRY, stageStdin, validRequest, withStdin } from "./exec.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { EXEC_MARKER_ENV } from "./markers.js";
import { sweep } from "./run-script.js";

/** How long the sandbox's own watchdog waits past a streamed command's timeout (the runtime kills it first). */
const BACKSTOP_MS = 5_000;
/** How long the exit code may lag the end of the followed log. */
const EXIT_WAIT_DELAYS_MS = [0, 100, 200, 400, 800] as const;
/** Raw bytes per input line (base64 of 48 KiB is one 64 KiB line). */
const INPUT_CHUNK_BYTES = 48 * 1024;
const encoder = new TextEncoder();

/** A request for a session command, validated: what `execStream` and `spawn` run. */
export type SessionPlan = Omit<ExecPlan, "command"> & {
  /** The command, stdin arranged for a streamed one. */
  readonly command: string;
  readonly interactive: boolean;
};

/** Validates a request for `execStream` (`interactive: false`) or `spawn` (`true`). */
export function planSession(
  context: DaytonaContext,
  request: ExecRequest,
  interactive: boolean,
): SessionPlan & { readonly initialInput?: Uint8Array } {
  const { options } = context;
  const { valid, cwd } = validRequest(options, request);
  const stdin = interactive
    ? { command: requestCommand(valid) }
    : withStdin(options, requestCommand(valid), valid.stdin, cwd);
  const marker = randomUUID();
  const initial = interactive && valid.stdin !== undefined ? valid.stdin : undefined;
  return {
    command: stdin.command,
    cwd,
    env: { ...valid.env, [EXEC_MARKER_ENV]: marker },
    marker,
    timeoutMs: valid.timeoutMs ?? options.runBudgetMs,
    maxOutputBytes: valid.maxOutputBytes ?? options.maxOutputBytes,
    interactive,
    ...("upload" in stdin && stdin.upload ? { stdinUpload: stdin.upload } : {}),
    ...(initial === undefined ? {} : { initialInput: typeof initial === "string" ? encoder.encode(initial) : initial }),
  };
}

/** Why a session command was stopped by the runtime. */
type StopReason = "timeout" | "output-limit" | "killed";

/**
 * One command running in its own Daytona session (`execStream`, `spawn`):
 * started with `runAsync`, its merged output followed over the SDK's log
 * WebSocket, ended by its exit or by {@link kill} (deleting the session kills
 * its process group; a sweep by marker gets the rest). The session is deleted
 * once the command has ended.
 */
export class SessionRun {
  readonly #sandbox: DaytonaSandbox;
  readonly #sandboxId: string;
  readonly #plan: SessionPlan;
  readonly #session: string;
  readonly #commandId: string;
  #stopped: StopReason | undefined;
  #killing: Promise<void> | undefined;
  #ended = false;

  private constructor(
    sandbox: DaytonaSandbox,
    sandboxId: string,
    plan: SessionPlan,
    session: string,
    commandId: string,
  ) {
    this.#sandbox = sandbox;
    this.#sandboxId = sandboxId;
    this.#plan = plan;
    this.#session = session;
    this.#commandId = commandId;
  }

  /** Creates the session and starts the command in it (within `timing`); a refused start (429, 503) is retried. */
  static async start(
    context: DaytonaContext,
    sandbox: DaytonaSandbox,
    sandboxId: string,
    plan: SessionPlan,
    timing: CallTiming,
  ): Promise<SessionRun> {
    const session = `sandport-run-${randomUUID()}`;
    const script = sessionScript({
      home: await context.homeOf(sandbox),
      cwd: plan.cwd,
      env: plan.env,
      marker: plan.marker,
      command: plan.command,
      watchdogMs: plan.timeoutMs + BACKSTOP_MS,
      timeoutMark: `${context.options.commandStateDirectory}/timeouts/${session}`,
      interactive: plan.interactive,
    });
    const command = daemonCommand(script);
    assertCommandFits(command, PROVIDER);
    await stageStdin(sandbox, plan.stdinUpload, timing);
    const site = { operation: plan.interactive ? "spawn" : "execStream", sandboxId };
    const refusedOnly = {
      policy: START_RETRY,
      isRetryable: wasRefused,
      ...(timing.signal ? { signal: timing.signal } : {}),
    };
    await retry(() => sandbox.process.createSession(session), refusedOnly).catch((error: unknown) => {
      throw mapDaytonaError(error, site);
    });
    try {
      const started = await retry(
        () => sandbox.process.executeSessionCommand(session, { command, runAsync: true, suppressInputEcho: true }),
        refusedOnly,
      );
      if (!started.cmdId) throw new Error("daytona started the command but reported no command id");
      return new SessionRun(sandbox, sandboxId, plan, session, started.cmdId);
    } catch (error) {
      void sandbox.process.deleteSession(session).catch(() => undefined);
      throw mapDaytonaError(error, site);
    }
  }

  /**
   * Follows the output until the command ends and resolves its result.
   * `emit` receives each output chunk (as stdout: output is merged). The
   * runtime's own stops are results (`timedOut`, `truncated`, `exitCode: null`);
   * a log that ends while the command still runs is a lost command: it is
   * killed and the call rejects `PROVIDER_UNAVAILABLE` (outcome unknown).
   */
  async follow(emit: (event: ExecEvent) => void): Promise<ExecResult> {
    const started = performance.now();
    const output = new OutputCollector(
      this.#plan.maxOutputBytes,
      (_stream, data) => emit({ type: "stdout", data, bytes: encoder.encode(data) }),
      () => {
        if (!exited) void this.kill("output-limit");
      },
    );
    let exited = false;
    const timer = setTimeout(() => void this.kill("timeout"), this.#plan.timeoutMs);
    let followed = "";
    const push = (chunk: string) => {
      followed += chunk;
      output.push("stdout", chunk);
    };
    try {
      let lost: unknown;
      await this.#sandbox.process.getSessionCommandLogs(this.#session, this.#commandId, push, push).catch((error) => {
        lost = error;
      });
      await this.#killing;
      const exitCode = this.#stopped ? undefined : await this.#exitCode();
      if (!this.#stopped && exitCode === undefined) {
        await this.kill("killed");
        throw this.#lostOutput(lost);
      }
      if (exitCode !== undefined) {
        exited = true;
        // A followed log can end early without an error (a cut stream) or with
        // one; the stored log is read once more so what was missed is not lost.
        const rest = await this.#rest(followed, lost, exitCode);
        if (rest) output.push("stdout", rest);
      }
      return {
        exitCode: this.#stopped ? null : (exitCode as number),
        stdout: output.stdout,
        stderr: "",
        truncated: output.truncated,
        timedOut: this.#stopped === "timeout",
        durationMs: performance.now() - started,
      };
    } finally {
      clearTimeout(timer);
      this.#ended = true;
      if (!this.#killing) void this.#sandbox.process.deleteSession(this.#session).catch(() => undefined);
    }
  }

  /** Kills the command and everything it started; idempotent. */
  kill(reason: StopReason = "killed"): Promise<void> {
    if (this.#ended) return this.#killing ?? Promise.resolve();
    this.#stopped ??= reason;
    this.#killing ??= (async () => {
      await this.#sandbox.process.deleteSession(this.#session).catch(() => undefined);
      await sweep(this.#sandbox, this.#plan.marker, this.#sandboxId);
    })();
    return this.#killing;
  }

  /** True once the command has ended (or was killed). */
  get ended(): boolean {
    return this.#ended || this.#stopped !== undefined;
  }

  /**
   * Sends `data` to the command's stdin, base64 in lines (a relay in the
   * sandbox decodes them). `NOT_FOUND` once the command has ended.
   */
  async input(data: Uint8Array): Promise<void> {
    if (this.ended) throw exited();
    for (let offset = 0; offset < data.byteLength; offset += INPUT_CHUNK_BYTES) {
      const chunk = data.subarray(offset, offset + INPUT_CHUNK_BYTES);
      await this.#send(`${Buffer.from(chunk).toString("base64")}\n`);
    }
  }

  /** Ends the command's stdin (the relay's end line). */
  closeInput(): Promise<void> {
    return this.#send(".\n");
  }

  async #send(line: string): Promise<void> {
    if (this.ended) throw exited();
    try {
      await retry(() => this.#sandbox.process.sendSessionCommandInput(this.#session, this.#commandId, line), {
        policy: START_RETRY,
        isRetryable: wasRefused,
      });
    } catch (error) {
      if (statusOf(error) === 410 || isNotFound(error)) throw exited(error);
      throw mapDaytonaError(error, { operation: "spawn input", sandboxId: this.#sandboxId });
    }
  }

  /** The exit code Daytona recorded, waiting a little for it to follow the end of the log. */
  async #exitCode(): Promise<number | undefined> {
    const timing = budget(5_000);
    for (const delay of EXIT_WAIT_DELAYS_MS) {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        const command = await this.#sandbox.process.getSessionCommand(this.#session, this.#commandId);
        if (typeof command.exitCode === "number") return command.exitCode;
      } catch (error) {
        if (isNotFound(error) || timing.remainingMs() === 0) return undefined;
      }
    }
    return undefined;
  }

  /**
   * What the stored log holds beyond `followed` (the SDK's non-streaming read).
   * A failed read, or a log that does not begin with what was followed, rejects
   * `PROVIDER_UNAVAILABLE`: output that may be incomplete is never a result.
   */
  async #rest(followed: string, lost: unknown, exitCode: number): Promise<string> {
    let whole: string;
    try {
      const logs = await retry(() => this.#sandbox.process.getSessionCommandLogs(this.#session, this.#commandId), {
        policy: START_RETRY,
        isRetryable: (error) => wasRefused(error) || statusOf(error) === undefined || (statusOf(error) ?? 0) >= 500,
      });
      whole = logs.output ?? `${logs.stdout ?? ""}${logs.stderr ?? ""}`;
    } catch (error) {
      throw this.#incomplete(lost ?? error, exitCode);
    }
    if (!whole.startsWith(followed)) throw this.#incomplete(lost, exitCode);
    return whole.slice(followed.length);
  }

  #incomplete(cause: unknown, exitCode: number): SandportError {
    return new SandportError({
      code: "PROVIDER_UNAVAILABLE",
      provider: PROVIDER,
      retryable: false,
      ...(cause === undefined ? {} : { cause }),
      message: `daytona lost part of the output of a command in sandbox ${this.#sandboxId}; it exited ${exitCode}, and its log could not be read again`,
      details: { sandboxId: this.#sandboxId, exitCode, lostOutput: true },
    });
  }

  #lostOutput(cause: unknown): SandportError {
    return new SandportError({
      code: "PROVIDER_UNAVAILABLE",
      provider: PROVIDER,
      retryable: false,
      ...(cause === undefined ? {} : { cause }),
      message: `daytona lost the output of a running command in sandbox ${this.#sandboxId} (it was stopped; its effects are unknown)`,
      details: { sandboxId: this.#sandboxId, outcomeUnknown: true },
    });
  }
}

function exited(cause?: unknown): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: PROVIDER,
    retryable: false,
    ...(cause === undefined ? {} : { cause }),
    message: "the process has exited; its stdin is gone",
  });
}
