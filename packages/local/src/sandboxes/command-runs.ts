import {
  type ExecEvent,
  type ExecResult,
  type SandboxProcess,
  toSandportError,
  type ValidatedExecRequest,
} from "@sandport/core";
import { type EventQueue, withLimit } from "@sandport/core/adapter";
import { releaseLeaf } from "../cgroups/cgroups.js";
import { awaitProcessesReleased, limitBetween, readLimitCounters } from "../cgroups/limit-counters.js";
import { LocalProcess } from "../commands/local-process.js";
import { type RunOptions, type RunOutcome, runCommand } from "../commands/process-runner.js";
import type { RunningCommands } from "../commands/running-commands.js";
import { diskFull } from "../disk/workspace-disk.js";
import { LOCAL_PROVIDER, type ResolvedLocalOptions } from "../options.js";
import type { SandboxAccess } from "./sandbox-access.js";

/** What a caller of {@link CommandRuns.run} watches while the command runs. */
export type RunCallbacks = Pick<RunOptions, "onStarted" | "onOutput" | "onStdin">;

/**
 * The command runs behind `LocalRuntime`'s `exec`, `execStream` and `spawn`:
 * each command is planned for a live sandbox, tracked among this instance's
 * running commands (which `destroy` stops first) and registered where a
 * `destroy` in another process finds it. A sandbox with resource limits has
 * its cgroups' counters read before the command starts and after it ends: an
 * OOM kill or a refused fork counted in between is the outcome's `limit`
 * (counted for the whole sandbox, so a command running beside the one that
 * hit the limit sees it too, and reports it if it also failed). A sandbox
 * with a disk bound has no such counter: a command that failed while its
 * workspace's file system is full (see `diskFull`) reports `disk`.
 */
export class CommandRuns {
  readonly #options: ResolvedLocalOptions;
  readonly #access: SandboxAccess;
  readonly #running: RunningCommands;

  /** @param running the runtime's registry of commands in flight, shared with `access` */
  constructor(options: ResolvedLocalOptions, access: SandboxAccess, running: RunningCommands) {
    this.#options = options;
    this.#access = access;
    this.#running = running;
  }

  /** Runs a command of sandbox `id` to completion; aborting `signal` kills it. */
  async run(
    id: string,
    request: ValidatedExecRequest,
    signal: AbortSignal,
    callbacks: RunCallbacks = {},
  ): Promise<RunOutcome> {
    // One registration per start (a start bubblewrap killed before the gate opened is started again).
    const unmarks: (() => void)[] = [];
    try {
      // Tracked before the first await: a destroy that begins while the command is planned waits for it.
      return await this.#running.track(id, signal, async (combined) => {
        const record = await this.#access.requireLive(id, false);
        const plan = await this.#access.planFor(record, request);
        if (combined.aborted) {
          // Destroyed (NOT_FOUND) or abandoned before it started: nothing is spawned.
          if (plan.leaf) await releaseLeaf(plan.leaf).catch(() => {});
          throw combined.reason;
        }
        // The sandbox's limit counters, read before and after: a change between is this command's to report.
        const before = await readLimitCounters(record.cgroups);
        const outcome = await runCommand({
          plan,
          ...(request.stdin === undefined ? {} : { stdin: toBytes(request.stdin) }),
          timeoutMs: request.timeoutMs ?? this.#options.runBudgetMs,
          maxOutputBytes: request.maxOutputBytes ?? this.#options.maxOutputBytes,
          killGraceMs: this.#options.killGraceMs,
          signal: combined,
          onSpawned: (pid) => {
            const registration = this.#access.register(record, plan, pid);
            unmarks.push(registration.remove);
            return registration.written;
          },
          ...callbacks,
        });
        const counted = limitBetween(before, await readLimitCounters(record.cgroups));
        // A bounded workspace found full once a command failed: the write it failed on was refused at the bound.
        const failed = outcome.exitCode !== 0;
        const full =
          counted === undefined && failed && record.disk !== undefined
            ? await diskFull(this.#access.store().workspaceDirectory(record))
            : false;
        const limit = counted ?? (full ? "disk" : undefined);
        if (limit === undefined) return outcome;
        if (limit === "processes" && before) await awaitProcessesReleased(record.cgroups, before);
        return { ...outcome, limit };
      });
    } finally {
      for (const unmark of unmarks) unmark();
    }
  }

  /**
   * Runs a command, pushing `started`, output chunks as they arrive (decoded
   * as UTF-8 across chunk boundaries), then `exited` into `queue`, and ends it.
   */
  async stream(
    id: string,
    request: ValidatedExecRequest,
    signal: AbortSignal,
    queue: EventQueue<ExecEvent>,
  ): Promise<void> {
    const isolation = this.#options.isolation;
    const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
    let started = false;
    const outcome = await this.run(id, request, signal, {
      onStarted: (pid) => {
        started = true;
        queue.push(pid === undefined ? { type: "started", isolation } : { type: "started", pid, isolation });
      },
      onOutput: (stream, chunk) => {
        const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        queue.push({ type: stream, data: decoders[stream].decode(chunk, { stream: true }), bytes });
      },
    });
    if (!started) queue.push({ type: "started", isolation });
    for (const stream of ["stdout", "stderr"] as const) {
      const tail = decoders[stream].decode();
      if (tail !== "") queue.push({ type: stream, data: tail, bytes: new Uint8Array(0) });
    }
    queue.push({ type: "exited", result: this.result(outcome) });
    queue.end();
  }

  /**
   * Starts a command whose stdin stays open and resolves once it runs.
   * Aborting `signal` before then, or `callerSignal` at any time, kills it.
   */
  async spawn(
    id: string,
    request: ValidatedExecRequest,
    signal: AbortSignal,
    callerSignal?: AbortSignal,
  ): Promise<SandboxProcess> {
    const kill = new AbortController();
    const killOnAbort = (from: AbortSignal) => {
      const listener = () => kill.abort(from.reason);
      if (from.aborted) listener();
      else from.addEventListener("abort", listener, { once: true });
      return () => from.removeEventListener("abort", listener);
    };
    const process = new LocalProcess(kill, this.#options.isolation);
    const stopStartWatch = killOnAbort(signal);
    if (callerSignal) killOnAbort(callerSignal);
    let markStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const running = this.run(id, request, kill.signal, {
      onStarted: (pid) => {
        process.started(pid);
        markStarted();
      },
      onOutput: (stream, chunk) => process.output(stream, chunk),
      onStdin: (stdin) => process.attachStdin(stdin),
    }).then(
      (outcome) => process.finish(this.result(outcome)),
      (error: unknown) => {
        process.fail(toLocalError(error));
        return error;
      },
    );
    try {
      // Whichever comes first: the command runs, or it ended (a failure to start among the ways).
      const ended = await Promise.race([started, running]);
      if (ended !== undefined) throw ended;
    } finally {
      stopStartWatch();
    }
    return process;
  }

  /** The port's `ExecResult` for a run's outcome; `limit` by the port's one rule (`withLimit`). */
  result(outcome: RunOutcome): ExecResult {
    return withLimit(
      {
        exitCode: outcome.exitCode,
        stdout: outcome.stdout.toString("utf8"),
        stderr: outcome.stderr.toString("utf8"),
        truncated: outcome.truncated,
        timedOut: outcome.timedOut,
        durationMs: outcome.durationMs,
        isolation: this.#options.isolation,
      },
      outcome.limit,
    );
  }
}

/** Any error as a `SandportError` of the local provider (`UNEXPECTED` when unclassified). */
export function toLocalError(error: unknown) {
  return toSandportError(error, LOCAL_PROVIDER);
}

/** Request stdin as bytes (a string is UTF-8). */
export function toBytes(input: string | Uint8Array): Uint8Array {
  return typeof input === "string" ? Buffer.from(input, "utf8") : input;
}
