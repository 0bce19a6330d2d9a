import type { ExecEvent, ExecResult } from "@sandport/core";
import { OutputCollector } from "@sandport/core/adapter";
import { budget, type CallTiming, type E2BContext } from "./context.js";
import type { E2BCommandHandle, E2BSandbox } from "./internal/sdk-types.js";
import { KILL_TIMEOUT_MS, killProcessTree, lostOutput, startProcess } from "./process-control.js";

/** Output cap of the adapter's own helper scripts (symlink guard, chmod). */
const SCRIPT_OUTPUT_BYTES = 1024 * 1024;
/** Encodes the text the SDK hands over back to its UTF-8 bytes. */
const encoder = new TextEncoder();

/** A validated command, ready to send: what envd runs with `bash -l -c`. */
export interface CommandPlan {
  readonly command: string;
  /** Absolute working directory inside the sandbox. */
  readonly cwd: string;
  /** Per-command environment (merged over the launch env by E2B). */
  readonly env: Record<string, string>;
  /** Value of {@link EXEC_MARKER_ENV} for this command, when it carries one. */
  readonly marker?: string;
  /** Command timeout in ms; always sent, so the SDK's implicit 60 s never applies. */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
  /** Stdin too large to embed: uploaded to `path` before the start; the command opens and deletes it. */
  readonly stdinUpload?: { readonly path: string; readonly content: Uint8Array };
  /** For a command whose stdin stays open (spawn): the request's `stdin`, written to it first. */
  readonly firstWrite?: string | Uint8Array;
}

/** Uploads a plan's large stdin, if it has one (one request). */
export async function stageStdin(sandbox: E2BSandbox, plan: CommandPlan, timing: CallTiming): Promise<void> {
  if (!plan.stdinUpload) return;
  const { path, content } = plan.stdinUpload;
  const data = content.buffer.slice(content.byteOffset, content.byteOffset + content.byteLength) as ArrayBuffer;
  await sandbox.files.write([{ path, data }], { requestTimeoutMs: timing.remainingMs(), signal: timing.signal });
}

/** Removes a plan's staged stdin after a start that ran nothing (the command removes it otherwise). */
export async function discardStdin(sandbox: E2BSandbox, plan: CommandPlan): Promise<void> {
  if (!plan.stdinUpload) return;
  await sandbox.files.remove(plan.stdinUpload.path, { requestTimeoutMs: KILL_TIMEOUT_MS }).catch(() => undefined);
}

/**
 * Runs one of the adapter's own scripts (symlink guard, chmod) in the
 * workspace, to completion, within the caller's time.
 */
export function runScript(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  script: string,
  timing: CallTiming & { readonly signal: AbortSignal },
): Promise<ExecResult> {
  const plan = {
    command: script,
    cwd: context.options.workspaceRoot,
    env: {},
    timeoutMs: Math.max(1, timing.remainingMs()),
    maxOutputBytes: SCRIPT_OUTPUT_BYTES,
  };
  return runCommand(context, sandboxId, sandbox, plan, timing.signal);
}

/** Why the adapter stopped a command before it ended by itself. */
type StopReason = "output-limit" | "timeout" | "aborted" | "killed";

/** A command started by {@link startRun}: its pid, its end, and how to stop it. */
export interface CommandRun {
  readonly pid: number;
  /**
   * The result once the command ended: a non-zero exit, a timeout, the output
   * cap and a `kill()` are results. Rejects with the reason of the signal
   * given to `startRun` when that signal stopped it, and with a
   * `PROVIDER_UNAVAILABLE` or `NOT_FOUND` (`outcomeUnknown`) when its output stream broke.
   */
  readonly finished: Promise<ExecResult>;
  /** Kills the command and its descendants (once; later calls share the first). Resolves once the kill was sent. */
  kill(): Promise<void>;
}

/** What {@link startRun} does besides starting the plan. */
export interface RunOptions {
  /**
   * Cancels the start. While the command runs, aborting it kills the command
   * and `finished` rejects with its reason: `exec` passes its call's signal,
   * `spawn` one that only bounds the start.
   */
  readonly signal: AbortSignal;
  /** Receives `started` first, then the output chunks within the cap, as they happen. */
  readonly emit?: (event: ExecEvent) => void;
  /** Keeps the command's stdin open for `sendStdin` (spawn). Default: no stdin. */
  readonly openStdin?: boolean;
}

/**
 * Starts `plan` in `sandbox` and resolves once it runs. Past `maxOutputBytes`
 * the output is cut and the command killed; a command past its timeout is
 * killed by envd. Kills reach its descendants (`killProcessTree`), and so does
 * a start that was cancelled midway, which may have started it anyway.
 * The engine of `exec`, `execStream`, `spawn` and the adapter's own scripts.
 */
export async function startRun(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  plan: CommandPlan,
  options: RunOptions,
): Promise<CommandRun> {
  const { signal, emit } = options;
  const started = performance.now();
  let stopReason: StopReason | undefined;
  let process: E2BCommandHandle | undefined;
  let killing: Promise<boolean> | undefined;
  const kill = (reason: StopReason) => {
    stopReason ??= reason;
    if (process && !killing) killing = killProcessTree(sandbox, process.pid, plan.marker);
    return killing ?? Promise.resolve(false);
  };
  // Output can arrive before the start call returns; hold it so `started` is always first.
  let early: ExecEvent[] | undefined = [];
  const output = new OutputCollector(
    plan.maxOutputBytes,
    (stream, data) => {
      // The SDK hands over decoded text: the bytes are its UTF-8 (binaryOutput is not-exposed).
      const event: ExecEvent = { type: stream, data, bytes: encoder.encode(data) };
      if (early) early.push(event);
      else emit?.(event);
    },
    () => void kill("output-limit"),
  );
  await stageStdin(sandbox, plan, { ...budget(context.options.timeouts.fileMs), signal });
  try {
    process = await startProcess(context, sandboxId, sandbox, plan, signal, output, options.openStdin ?? false);
  } catch (error) {
    await discardStdin(sandbox, plan);
    if (signal.aborted) void killProcessTree(sandbox, undefined, plan.marker);
    throw error;
  }
  const { pid } = process;
  emit?.({ type: "started", pid });
  for (const event of early) emit?.(event);
  early = undefined;
  if (output.truncated) void kill("output-limit");
  const onAbort = () => void kill("aborted");
  signal.addEventListener("abort", onAbort, { once: true });
  const result = (exitCode: number | null, timedOut = false): ExecResult =>
    output.result(exitCode, performance.now() - started, timedOut);
  const settle = async (running: E2BCommandHandle): Promise<ExecResult> => {
    try {
      await running.wait();
      return result(0);
    } catch (error) {
      if (signal.aborted) {
        await kill("aborted");
        throw signal.reason;
      }
      const exitCode = (error as { exitCode?: unknown }).exitCode;
      const name = (error as { name?: unknown }).name;
      const ranOut = performance.now() - started >= plan.timeoutMs - 50;
      if (stopReason === "output-limit" || stopReason === "killed") return result(null);
      if (name === "CommandExitError" && typeof exitCode === "number") {
        if (exitCode < 0 && ranOut) return result(null, true);
        return result(exitCode < 0 ? null : exitCode);
      }
      if (name === "TimeoutError" || ranOut) {
        await kill("timeout");
        return result(null, true);
      }
      // The stream broke while the command ran: it may still be running, so stop it.
      await kill("aborted");
      throw lostOutput(sandboxId, pid, error);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  };
  const finished = settle(process);
  // A caller that only kills must not see an unhandled rejection; `finished` still rejects for those who wait.
  finished.catch(() => {});
  return { pid, finished, kill: async () => void (await kill("killed")) };
}

/**
 * Starts `plan` in `sandbox` and waits for it: non-zero exits, timeouts and
 * the output cap are results. Shared by `exec`, `execStream` and the adapter's
 * own scripts; `emit` receives `started` and output events as they happen.
 */
export async function runCommand(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  plan: CommandPlan,
  signal: AbortSignal,
  emit?: (event: ExecEvent) => void,
): Promise<ExecResult> {
  const run = await startRun(context, sandboxId, sandbox, plan, emit ? { signal, emit } : { signal });
  return run.finished;
}
