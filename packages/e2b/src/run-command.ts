import { type ExecEvent, type ExecResult, retry, SandportError } from "@sandport/core";
import { httpStatusOf, isConnectionLost, markerSweepScript, OutputCollector } from "@sandport/core/adapter";
import { budget, type CallTiming, type E2BContext } from "./context.js";
import { isSandboxNotFound, mapE2BError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { E2BCommandHandle, E2BSandbox } from "./internal/sdk-types.js";
import { EXEC_MARKER_ENV } from "./markers.js";

/** Retries of a command start E2B refused (429, 5xx before the process existed). */
const START_RETRY = { maxAttempts: 3, initialDelayMs: 250, maxDelayMs: 2_000 } as const;
/** Deadline of the best-effort kill after a timeout, abort or output overflow. */
const KILL_TIMEOUT_MS = 10_000;
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
      const event: ExecEvent = { type: stream, data, bytes: encoder.encode(data) };
      if (early) early.push(event);
      else emit?.(event);
    },
    () => void kill("output-limit"),
  );
  await stageStdin(sandbox, plan, { ...budget(context.options.timeouts.fileMs), signal });
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
    if (stopReason === "output-limit") return result(null);
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
    throw lostOutput(sandboxId, process.pid, error);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Starts the process, retrying only when E2B provably refused before the
 * process existed (429, a 5xx answer, or an "unavailable" reply while the
 * sandbox still exists). A dropped connection is not retried: the command may have started.
 */
function startProcess(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  plan: CommandPlan,
  signal: AbortSignal,
  output: OutputCollector,
): Promise<E2BCommandHandle> {
  const timing = { ...budget(context.options.timeouts.lookupMs), signal };
  const start = () =>
    sandbox.commands
      .run(plan.command, {
        background: true,
        cwd: plan.cwd,
        envs: plan.env,
        timeoutMs: plan.timeoutMs,
        stdin: false,
        requestTimeoutMs: timing.remainingMs(),
        signal,
        onStdout: (data) => output.push("stdout", data),
        onStderr: (data) => output.push("stderr", data),
      })
      .catch(async (error: unknown) => {
        throw await classifyStartFailure(context, sandboxId, error, timing);
      });
  const isRetryable = (error: unknown) => SandportError.isInstance(error) && error.details.refused === true;
  return retry(start, { policy: START_RETRY, signal, isRetryable });
}

async function classifyStartFailure(
  context: E2BContext,
  sandboxId: string,
  error: unknown,
  timing: CallTiming & { readonly signal: AbortSignal },
): Promise<SandportError> {
  const mapped = mapE2BError(error, { operation: "exec", sandboxId });
  const status = httpStatusOf(error);
  const refused = (why: string) =>
    new SandportError({
      code: mapped.code === "RATE_LIMITED" ? "RATE_LIMITED" : "PROVIDER_UNAVAILABLE",
      provider: PROVIDER,
      retryable: true,
      cause: error,
      message: `e2b refused to start the command in sandbox ${sandboxId} (${why}); nothing ran`,
      details: { sandboxId, refused: true, ...(status === undefined ? {} : { status }) },
    });
  if (timing.signal.aborted) return mapped;
  if (mapped.code === "RATE_LIMITED") return refused("rate limited");
  if (isSandboxNotFound(error)) {
    // The SDK reports every "unavailable" answer (429/502/503/504 or a dead sandbox) this way: look.
    const info = await context.ownedInfo(sandboxId, "exec", timing);
    return info ? refused("the sandbox is running but its envd was unavailable") : mapped;
  }
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
  if (status !== undefined && status >= 500) return refused(`HTTP ${status}`);
  return mapped;
}

function lostOutput(sandboxId: string, pid: number, error: unknown): SandportError {
  const gone = mapE2BError(error, { operation: "exec", sandboxId }).code === "NOT_FOUND";
  return new SandportError({
    code: gone ? "NOT_FOUND" : "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `e2b lost the output of a running command in sandbox ${sandboxId} (it was stopped; its effects are unknown)`,
    details: { sandboxId, pid, outcomeUnknown: true },
  });
}

/**
 * Best-effort kill of a command and its descendants: SIGKILL to its pid, then
 * (when it carries a marker) the kit's marker sweep. Resolves `false` when the
 * command was already gone or the kill failed; a command that survives a
 * failed kill still ends at its own timeout, which is always set.
 */
async function killProcessTree(sandbox: E2BSandbox, pid: number, marker: string | undefined): Promise<boolean> {
  const killed = await sandbox.commands.kill(pid, { requestTimeoutMs: KILL_TIMEOUT_MS }).catch(() => false);
  if (marker === undefined) return killed;
  try {
    const sweep = await sandbox.commands.run(markerSweepScript(EXEC_MARKER_ENV, marker), {
      background: true,
      timeoutMs: KILL_TIMEOUT_MS,
      stdin: false,
      requestTimeoutMs: KILL_TIMEOUT_MS,
    });
    await sweep.wait().catch(() => undefined);
  } catch {
    // Best effort: see above.
  }
  return killed;
}
