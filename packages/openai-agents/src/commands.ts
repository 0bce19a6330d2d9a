import { randomUUID } from "node:crypto";
import type { ExecCommandArgs, SandboxExecResult, WriteStdinArgs } from "@openai/agents-core/sandbox";
import { type ExecRequest, type ExecResult, exitStatus, type SandboxHandle, type SandboxRuntime } from "@sandport/core";
import { loadAgentsSdk } from "./internal/sdk.js";
import { type CommandEnding, type CommandOutput, formatReport, truncateToTokens } from "./output.js";
import { RunningCommand } from "./running-command.js";
import { terminalProcess } from "./terminal-process.js";

/** A command's result for the framework, and how it ended (which the report text words). */
export interface CommandReport {
  readonly result: SandboxExecResult;
  readonly ending: CommandEnding;
}

/** How long `exec_command` waits before yielding a session id, when the model gives no `yield_time_ms`. */
const DEFAULT_EXEC_YIELD_MS = 10_000;
/** How long `write_stdin` waits for output, when the model gives no `yield_time_ms`. */
const DEFAULT_WRITE_STDIN_YIELD_MS = 250;
/** Ctrl-C: `write_stdin` turns it into a kill, there being no terminal to deliver it to (except for `tty` commands). */
const INTERRUPT = "\u0003";

/**
 * The model's commands in one sandbox: `exec_command` runs a shell command
 * and, where the runtime can `spawn`, yields a session id when the command
 * outlives `yieldTimeMs`; `write_stdin` then writes to it and polls it.
 * Without `spawn`, a command runs to completion (within the runtime's run
 * budget) and `write_stdin` is not offered.
 */
export class SandboxCommands<H extends SandboxHandle> {
  readonly #runtime: SandboxRuntime<H>;
  readonly #handle: H;
  readonly #environment: () => Record<string, string>;
  readonly #running = new Map<number, RunningCommand>();
  /** Commands on a terminal, to which Ctrl-C is typed rather than turned into a kill. */
  readonly #onTerminal = new WeakSet<RunningCommand>();
  #nextSessionId = 1;

  constructor(runtime: SandboxRuntime<H>, handle: H, environment: () => Record<string, string>) {
    this.#runtime = runtime;
    this.#handle = handle;
    this.#environment = environment;
  }

  /** Whether `write_stdin` can work: the runtime has `spawn`. */
  get interactive(): boolean {
    return typeof this.#runtime.spawn === "function";
  }

  /**
   * Runs `args.cmd`. With `tty: true` it runs on a terminal (`openTerminal`),
   * where the runtime has one; otherwise `tty`, and another user (`runAs`),
   * are refused with the framework's unsupported-feature error before anything starts.
   */
  async run(args: ExecCommandArgs): Promise<CommandReport> {
    const sdk = await loadAgentsSdk();
    const refuse = (feature: string, why: string) =>
      new sdk.SandboxUnsupportedFeatureError(`Sandport sandboxes cannot ${why}`, {
        provider: this.#runtime.provider,
        feature,
      });
    const openTerminal = this.#runtime.openTerminal?.bind(this.#runtime);
    if (args.tty && !openTerminal) {
      throw refuse(
        "tty",
        `allocate a terminal (${this.#runtime.provider} has no openTerminal): run the command without tty`,
      );
    }
    if (args.runAs !== undefined) throw refuse("runAs", "run a command as another user");
    const started = Date.now();
    const request = this.#request(args);
    if (args.tty && openTerminal) {
      const { argv, cwd, env } = request as { argv: string[]; cwd?: string; env?: Record<string, string> };
      const terminal = await openTerminal(this.#handle, {
        argv,
        ...(cwd === undefined ? {} : { cwd }),
        env: env ?? {},
      });
      const command = new RunningCommand(terminalProcess(terminal));
      this.#onTerminal.add(command);
      await command.settle(args.yieldTimeMs ?? DEFAULT_EXEC_YIELD_MS);
      const ending = this.#ending(command);
      return { result: report(command.take(), ending, started, args.maxOutputTokens), ending };
    }
    if (!this.interactive) {
      const result = await this.#runtime.exec(this.#handle, request);
      const ending: CommandEnding = { running: false, result };
      // Without spawn the streams come apart: stdout, then stderr.
      const output = { output: result.stdout + result.stderr, stdout: result.stdout, stderr: result.stderr };
      return { result: report(output, ending, started, args.maxOutputTokens), ending };
    }
    const process = await (this.#runtime.spawn as NonNullable<SandboxRuntime<H>["spawn"]>)(this.#handle, request);
    const command = new RunningCommand(process);
    await command.settle(args.yieldTimeMs ?? DEFAULT_EXEC_YIELD_MS);
    const ending = this.#ending(command);
    return { result: report(command.take(), ending, started, args.maxOutputTokens), ending };
  }

  /**
   * Writes `chars` to a running command (Ctrl-C kills it, or on a terminal is
   * typed, interrupting the foreground job), waits, and reports what it printed.
   */
  async writeStdin(args: WriteStdinArgs): Promise<string> {
    const started = Date.now();
    const command = this.#running.get(args.sessionId);
    if (!command) {
      return formatReport({
        chunkId: chunkId(),
        output: `write_stdin failed: session not found: ${args.sessionId}`,
        wallTimeSeconds: 0,
        ending: { running: false, result: failed() },
      });
    }
    const chars = args.chars ?? "";
    const onTerminal = this.#onTerminal.has(command);
    if (!onTerminal && chars.includes(INTERRUPT)) await command.process.kill();
    const text = onTerminal ? chars : chars.split(INTERRUPT).join("");
    if (text.length > 0 && command.result === undefined) await command.process.write(text);
    await command.settle(args.yieldTimeMs ?? DEFAULT_WRITE_STDIN_YIELD_MS);
    const ending = this.#ending(command, args.sessionId);
    return formatExecResult(report(command.take(), ending, started, args.maxOutputTokens), ending);
  }

  /** Kills every command still running (the session is closing). */
  async killAll(): Promise<void> {
    const commands = [...this.#running.values()];
    this.#running.clear();
    await Promise.allSettled(commands.map((command) => command.process.kill()));
  }

  #request(args: ExecCommandArgs): ExecRequest {
    const login = args.login ?? true;
    return {
      argv: [args.shell ?? "sh", ...(login ? ["-l"] : []), "-c", args.cmd],
      ...(args.workdir === undefined ? {} : { cwd: args.workdir }),
      env: this.#environment(),
    };
  }

  /** The command's ending; a command still running gets (or keeps) a session id. */
  #ending(command: RunningCommand, sessionId?: number): CommandEnding {
    const result = command.result;
    if (result !== undefined) {
      if (sessionId !== undefined) this.#running.delete(sessionId);
      return { running: false, result };
    }
    const id = sessionId ?? this.#nextSessionId++;
    this.#running.set(id, command);
    return { running: true, sessionId: id };
  }
}

function report(
  output: CommandOutput,
  ending: CommandEnding,
  started: number,
  maxOutputTokens: number | undefined,
): SandboxExecResult {
  const { text, originalTokenCount } = truncateToTokens(output.output, maxOutputTokens);
  return {
    output: text,
    stdout: output.stdout,
    stderr: output.stderr,
    wallTimeSeconds: (Date.now() - started) / 1000,
    // A killed command (Sandport's `null`) gets a number, as the framework's own sandboxes give every
    // finished command: 124 past its time limit, else 137 (core's exitStatus, as in every bridge).
    ...(ending.running ? { sessionId: ending.sessionId } : { exitCode: exitStatus(ending.result) }),
    ...(originalTokenCount === undefined ? {} : { originalTokenCount }),
  };
}

/** The report text of a result, as `exec_command` shows it. */
export function formatExecResult(result: SandboxExecResult, ending: CommandEnding): string {
  return formatReport({
    chunkId: chunkId(),
    output: result.output,
    wallTimeSeconds: result.wallTimeSeconds,
    ending,
    ...(result.originalTokenCount === undefined ? {} : { originalTokenCount: result.originalTokenCount }),
  });
}

function failed(): ExecResult {
  return { exitCode: 1, stdout: "", stderr: "", truncated: false, timedOut: false, durationMs: 0 };
}

function chunkId(): string {
  return randomUUID().replace(/-/g, "").slice(0, 6);
}
