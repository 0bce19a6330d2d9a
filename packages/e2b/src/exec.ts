import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import {
  composeShellCommand,
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  invalidRequest,
  type OpOptions,
  quoteShellArg,
  refuseReservedEnv,
  retry,
  SandportError,
  toSandboxPath,
  validateExecRequest,
  withDeadline,
} from "@sandport/core";
import { isConnectionLost, isSandboxNotFound, mapE2BError, statusOf } from "./errors.js";
import type { CallTiming, RuntimeContext } from "./internal/context.js";
import { EventQueue } from "./internal/event-queue.js";
import type { E2BCommandHandle, E2BSandbox } from "./internal/sdk-types.js";
import { KILL_TIMEOUT_MS, killProcessTree } from "./kill.js";
import { sandboxIdOf } from "./lifecycle.js";
import { EXEC_MARKER_ENV, RESERVED_ENV } from "./markers.js";
import { PROVIDER, type ResolvedOptions } from "./options.js";
import { OutputCollector } from "./output.js";
import type { E2BHandle } from "./ownership.js";

/**
 * Longest command string sent. envd hands it to `bash -c` as one argument,
 * and Linux refuses a single argument over 128 KiB (`MAX_ARG_STRLEN`).
 */
export const MAX_COMMAND_BYTES = 120 * 1024;

/** Retries of a command start the provider refused (429, 5xx before the process existed). */
const START_RETRY = { maxAttempts: 3, initialDelayMs: 250, maxDelayMs: 2_000 } as const;

/** Largest stdin embedded in the command itself; more is uploaded as a file first. */
const EMBEDDED_STDIN_BYTES = 64 * 1024;

/** A validated command, ready to send. */
export interface CommandPlan {
  /** The string envd runs with `bash -l -c`. */
  readonly command: string;
  /** Absolute working directory inside the sandbox. */
  readonly cwd: string;
  /** Per-command environment (merged over the launch env by the provider). */
  readonly env: Record<string, string>;
  /** Value of {@link EXEC_MARKER_ENV} for this command, when it carries one. */
  readonly marker?: string;
  /** Command timeout in ms; always sent. */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
  /** Stdin too large to embed: uploaded to `path` before the start; the command opens and deletes it. */
  readonly stdinUpload?: { readonly path: string; readonly content: Uint8Array };
}

/**
 * Validates a request and turns it into what E2B takes: one command string.
 * `argv` is quoted with POSIX single quotes and `exec`ed; a `shell` script runs
 * in its own `sh -c`. Stdin up to 64 KiB is embedded (base64) and piped in;
 * larger stdin is uploaded to a scratch file the command opens, then deletes.
 * The timeout is the caller's, else the run budget, so the SDK's implicit 60 s never applies.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest): CommandPlan {
  const valid = validateExecRequest(request, { root: options.workspaceRoot, provider: PROVIDER });
  refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
  const cwd = toSandboxPath(options.workspaceRoot, valid.cwd);
  let command = composeShellCommand({ request: valid });
  let stdinUpload: CommandPlan["stdinUpload"];
  if (valid.stdin !== undefined) {
    const bytes = typeof valid.stdin === "string" ? new TextEncoder().encode(valid.stdin) : valid.stdin;
    if (bytes.byteLength <= EMBEDDED_STDIN_BYTES) {
      command = `printf '%s' ${quoteShellArg(Buffer.from(bytes).toString("base64"))} | base64 -d | ${command}`;
    } else {
      const path = posix.join(options.scratchDirectory, randomUUID());
      // Relative to the command's directory, so it holds wherever the sandbox's tree is mounted.
      const relative = quoteShellArg(posix.relative(cwd, path));
      command = `exec 0<${relative} && rm -f -- ${relative} && ${command}`;
      stdinUpload = { path, content: bytes };
    }
  }
  if (Buffer.byteLength(command) > MAX_COMMAND_BYTES) {
    throw invalidRequest(
      `the command (argv or shell script) is longer than ${MAX_COMMAND_BYTES} bytes, the most E2B can pass to bash`,
      { limit: MAX_COMMAND_BYTES },
      PROVIDER,
    );
  }
  const marker = randomUUID();
  return {
    command,
    cwd,
    env: { ...valid.env, [EXEC_MARKER_ENV]: marker },
    marker,
    timeoutMs: valid.timeoutMs ?? options.runBudgetMs,
    maxOutputBytes: valid.maxOutputBytes ?? options.maxOutputBytes,
    ...(stdinUpload ? { stdinUpload } : {}),
  };
}

/** Uploads a plan's large stdin, if it has one (one request). */
export async function uploadStdin(sandbox: E2BSandbox, plan: CommandPlan, timing: CallTiming): Promise<void> {
  if (!plan.stdinUpload) return;
  const { path, content } = plan.stdinUpload;
  const data = content.buffer.slice(content.byteOffset, content.byteOffset + content.byteLength) as ArrayBuffer;
  await sandbox.files.write([{ path, data }], timing);
}

/** Removes a plan's staged stdin after a start that did not happen (the command removes it otherwise). */
export async function discardStdin(sandbox: E2BSandbox, plan: CommandPlan): Promise<void> {
  if (!plan.stdinUpload) return;
  await sandbox.files.remove(plan.stdinUpload.path, { requestTimeoutMs: KILL_TIMEOUT_MS }).catch(() => undefined);
}

/** Runs a command to completion; non-zero exits, timeouts and truncation are results. */
export async function execCommand(
  context: RuntimeContext,
  handle: E2BHandle,
  request: ExecRequest,
  op?: OpOptions,
): Promise<ExecResult> {
  const sandboxId = sandboxIdOf(handle, "exec");
  const plan = planCommand(context.options, request);
  return withDeadline(
    op,
    { provider: PROVIDER, operation: "exec", defaultTimeoutMs: plan.timeoutMs + context.options.timeouts.execGraceMs },
    async (signal) => {
      const sandbox = await context.sandbox(sandboxId, "exec", { requestTimeoutMs: requestTimeout(context), signal });
      context.markCommandRun(sandboxId);
      return runCommand(context, sandboxId, sandbox, plan, signal);
    },
  );
}

/** Runs a command and yields `started`, output chunks as they arrive, then `exited`. */
export async function* streamCommand(
  context: RuntimeContext,
  handle: E2BHandle,
  request: ExecRequest,
  op?: OpOptions,
): AsyncGenerator<ExecEvent> {
  const sandboxId = sandboxIdOf(handle, "execStream");
  const plan = planCommand(context.options, request);
  const queue = new EventQueue<ExecEvent>();
  // Stops the command when the consumer leaves the loop early.
  const consumer = new AbortController();
  const signal = op?.signal ? AbortSignal.any([op.signal, consumer.signal]) : consumer.signal;
  const running = withDeadline(
    { ...op, signal },
    {
      provider: PROVIDER,
      operation: "execStream",
      defaultTimeoutMs: plan.timeoutMs + context.options.timeouts.execGraceMs,
    },
    async (callSignal) => {
      const sandbox = await context.sandbox(sandboxId, "execStream", {
        requestTimeoutMs: requestTimeout(context),
        signal: callSignal,
      });
      context.markCommandRun(sandboxId);
      return runCommand(context, sandboxId, sandbox, plan, callSignal, (event) => queue.push(event));
    },
  );
  running.then(
    (result) => queue.close({ type: "exited", result }),
    (error: unknown) => queue.fail(error),
  );
  try {
    yield* queue;
  } finally {
    consumer.abort(new Error("the consumer stopped reading the stream"));
  }
}

/**
 * Starts `plan` in `sandbox` and waits for it. Shared by `exec`, `execStream`
 * and the adapter's own helper commands; `emit` receives `started` and output
 * events as they happen.
 */
export async function runCommand(
  context: RuntimeContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  plan: CommandPlan,
  signal: AbortSignal,
  emit?: (event: ExecEvent) => void,
): Promise<ExecResult> {
  const started = performance.now();
  let stopReason: "output-limit" | "timeout" | "aborted" | undefined;
  let process: E2BCommandHandle | undefined;
  let killing: Promise<boolean> | undefined;
  const kill = (reason: NonNullable<typeof stopReason>) => {
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
      const event: ExecEvent = { type: stream, data, bytes: new TextEncoder().encode(data) };
      if (early) early.push(event);
      else emit?.(event);
    },
    () => void kill("output-limit"),
  );
  try {
    await uploadStdin(sandbox, plan, { requestTimeoutMs: context.options.timeouts.fileMs, signal });
  } catch (error) {
    throw mapE2BError(error, { operation: "exec", sandboxId });
  }
  try {
    process = await startProcess(context, sandboxId, sandbox, plan, signal, output);
  } catch (error) {
    await discardStdin(sandbox, plan);
    throw error;
  }
  emit?.({ type: "started", pid: process.pid });
  for (const event of early) emit?.(event);
  early = undefined;
  if (output.truncated) void kill("output-limit");
  const onAbort = () => void kill("aborted");
  signal.addEventListener("abort", onAbort, { once: true });
  const result = (exitCode: number | null, timedOut = false): ExecResult => ({
    exitCode,
    stdout: output.stdout,
    stderr: output.stderr,
    truncated: output.truncated,
    timedOut,
    durationMs: performance.now() - started,
  });
  try {
    await process.wait();
    return result(0);
  } catch (error) {
    if (signal.aborted) {
      await kill("aborted");
      throw signal.reason;
    }
    const exitCode = (error as { exitCode?: unknown }).exitCode;
    const name = (error as { name?: unknown }).name;
    const ranOut = performance.now() - started >= plan.timeoutMs - 50;
    if (name === "CommandExitError" && typeof exitCode === "number") {
      if (stopReason === "output-limit") return result(null);
      if (exitCode < 0 && ranOut) return result(null, true);
      return result(exitCode < 0 ? null : exitCode);
    }
    if (stopReason === "output-limit") return result(null);
    if (name === "TimeoutError" || ranOut) {
      await kill("timeout");
      return result(null, true);
    }
    // The stream broke while the command ran: it may still be running, so stop it.
    await kill("aborted");
    throw new SandportError({
      code:
        mapE2BError(error, { operation: "exec", sandboxId }).code === "NOT_FOUND"
          ? "NOT_FOUND"
          : "PROVIDER_UNAVAILABLE",
      provider: PROVIDER,
      retryable: false,
      cause: error,
      message: `e2b lost the output of a running command in sandbox ${sandboxId} (it was stopped; its effects are unknown)`,
      details: { sandboxId, pid: process.pid, outcomeUnknown: true },
    });
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Starts the process, retrying only when the provider provably refused before
 * the process existed (429, a 5xx answer, or an "unavailable" reply while the
 * sandbox still exists). A dropped connection is not retried: the command may have started.
 */
async function startProcess(
  context: RuntimeContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  plan: CommandPlan,
  signal: AbortSignal,
  output: OutputCollector,
): Promise<E2BCommandHandle> {
  return retry(
    async () => {
      try {
        return await sandbox.commands.run(plan.command, {
          background: true,
          cwd: plan.cwd,
          envs: plan.env,
          timeoutMs: plan.timeoutMs,
          stdin: false,
          requestTimeoutMs: requestTimeout(context),
          signal,
          onStdout: (data) => output.push("stdout", data),
          onStderr: (data) => output.push("stderr", data),
        });
      } catch (error) {
        throw await classifyStartFailure(context, sandboxId, error, signal);
      }
    },
    {
      policy: START_RETRY,
      signal,
      isRetryable: (error) => SandportError.isInstance(error) && error.details.refused === true,
    },
  );
}

async function classifyStartFailure(
  context: RuntimeContext,
  sandboxId: string,
  error: unknown,
  signal: AbortSignal,
): Promise<SandportError> {
  const mapped = mapE2BError(error, { operation: "exec", sandboxId });
  const status = statusOf(error);
  const refused = (why: string) =>
    new SandportError({
      code: mapped.code === "RATE_LIMITED" ? "RATE_LIMITED" : "PROVIDER_UNAVAILABLE",
      provider: PROVIDER,
      retryable: true,
      cause: error,
      message: `e2b refused to start the command in sandbox ${sandboxId} (${why}); nothing ran`,
      details: { sandboxId, refused: true, ...(status === undefined ? {} : { status }) },
    });
  if (signal.aborted) return mapped;
  if (mapped.code === "RATE_LIMITED") return refused("rate limited");
  if (isSandboxNotFound(error)) {
    // The SDK reports every "unavailable" answer (429/502/503/504 or a dead sandbox) this way: look.
    const info = await context.ownedInfo(sandboxId, "exec", { requestTimeoutMs: requestTimeout(context), signal });
    return info ? refused("the sandbox is running but its envd was unavailable") : mapped;
  }
  if (status !== undefined && status >= 500 && !isConnectionLost(error)) return refused(`HTTP ${status}`);
  if (isConnectionLost(error)) {
    return new SandportError({
      code: "PROVIDER_UNAVAILABLE",
      provider: PROVIDER,
      retryable: false,
      cause: error,
      message: `e2b dropped the connection while starting a command in sandbox ${sandboxId}; it may have started`,
      details: { sandboxId, outcomeUnknown: true },
    });
  }
  return mapped;
}

function requestTimeout(context: RuntimeContext): number {
  return context.options.timeouts.lookupMs;
}
