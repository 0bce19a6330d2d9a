import { setTimeout as delay } from "node:timers/promises";
import type { CommandResult, ProcessHandle, SpawnProcessOptions } from "@mastra/core/workspace";
import type { CommandRef, ExecEvent, ExecResult, SandboxProcess } from "@sandport/core";
import type { BridgeContext } from "./context.js";
import { commandResult } from "./execute-command.js";

/** How often a started (async) command's status and output are polled. */
export const POLL_INTERVAL_MS = 100;

/** The two handle classes, built on the lazily loaded Mastra base class. */
export interface HandleClasses {
  /** A process started with the port's `spawn`: live output, stdin, kill. */
  readonly Spawned: new (
    context: BridgeContext,
    pid: string,
    process: SandboxProcess,
    events: AsyncIterator<ExecEvent>,
    command: string,
    options: SpawnProcessOptions,
  ) => ProcessHandle;
  /** A command started with the port's `startCommand`: polled output; no stdin, no kill. */
  readonly Started: new (
    context: BridgeContext,
    ref: CommandRef,
    command: string,
    options: SpawnProcessOptions,
  ) => ProcessHandle;
}

const retainedOptions = (options: SpawnProcessOptions) => ({
  ...(options.maxRetainedBytes === undefined ? {} : { maxRetainedBytes: options.maxRetainedBytes }),
  ...(options.onStdout === undefined ? {} : { onStdout: options.onStdout }),
  ...(options.onStderr === undefined ? {} : { onStderr: options.onStderr }),
});

/** Defines the handle classes over `context.mastra.ProcessHandle`. */
export function handleClasses(context: BridgeContext): HandleClasses {
  const { mastra } = context;

  /** The result Mastra's `wait()` returns: the command's, with the output the handle retained. */
  const finish = (handle: ProcessHandle, result: ExecResult, command: string): CommandResult => ({
    ...commandResult(result, command, undefined),
    stdout: handle.stdout,
    stderr: handle.stderr,
  });

  class Spawned extends mastra.ProcessHandle {
    readonly pid: string;
    exitCode: number | undefined = undefined;
    readonly #process: SandboxProcess;
    readonly #done: Promise<CommandResult>;

    constructor(
      _context: BridgeContext,
      pid: string,
      process: SandboxProcess,
      events: AsyncIterator<ExecEvent>,
      command: string,
      options: SpawnProcessOptions,
    ) {
      super(retainedOptions(options));
      this.pid = pid;
      this.#process = process;
      this.#done = (async () => {
        for (let next = await events.next(); !next.done; next = await events.next()) {
          if (next.value.type === "stdout") this.emitStdout(next.value.data);
          else if (next.value.type === "stderr") this.emitStderr(next.value.data);
        }
        const result = await process.result;
        this.exitCode = commandResult(result, command, undefined).exitCode;
        return finish(this, result, command);
      })();
      this.#done.catch(() => {});
    }

    override async wait(): Promise<CommandResult> {
      return this.#done;
    }

    async kill(): Promise<boolean> {
      if (this.exitCode !== undefined) return false;
      await this.#process.kill();
      return true;
    }

    async sendStdin(data: string): Promise<void> {
      await this.#process.write(data);
    }

    override async closeStdin(): Promise<void> {
      await this.#process.closeStdin();
    }
  }

  class Started extends mastra.ProcessHandle {
    readonly pid: string;
    exitCode: number | undefined = undefined;
    readonly #done: Promise<CommandResult>;

    constructor(context: BridgeContext, ref: CommandRef, command: string, options: SpawnProcessOptions) {
      super(retainedOptions(options));
      this.pid = ref.sessionId;
      const { runtime } = context;
      this.#done = (async () => {
        const emitted = { stdout: 0, stderr: 0 };
        const emitNew = (logs: ExecResult) => {
          if (logs.stdout.length > emitted.stdout) this.emitStdout(logs.stdout.slice(emitted.stdout));
          if (logs.stderr.length > emitted.stderr) this.emitStderr(logs.stderr.slice(emitted.stderr));
          emitted.stdout = Math.max(emitted.stdout, logs.stdout.length);
          emitted.stderr = Math.max(emitted.stderr, logs.stderr.length);
        };
        for (;;) {
          const status = await runtime.commandStatus!(context.handle(), ref);
          const logs = await runtime.commandLogs!(context.handle(), ref);
          emitNew(logs);
          if (status.state === "exited") {
            const result = { ...logs, exitCode: status.exitCode ?? logs.exitCode };
            this.exitCode = commandResult(result, command, undefined).exitCode;
            return finish(this, result, command);
          }
          await delay(POLL_INTERVAL_MS);
        }
      })();
      this.#done.catch(() => {});
    }

    override async wait(): Promise<CommandResult> {
      return this.#done;
    }

    async kill(): Promise<boolean> {
      throw new mastra.SandboxUnsupportedFeatureError(
        "this runtime starts background processes as async commands, which the Sandport port cannot kill",
        { feature: "kill", pid: this.pid },
      );
    }

    async sendStdin(): Promise<void> {
      throw new mastra.SandboxUnsupportedFeatureError(
        "this runtime starts background processes as async commands, which have no stdin",
        { feature: "sendStdin", pid: this.pid },
      );
    }
  }

  return { Spawned, Started };
}
