import { randomUUID } from "node:crypto";
import {
  type ExecRequest,
  type ExecResult,
  type OpOptions,
  refuseReservedEnv,
  retry,
  SandportError,
  toSandboxPath,
  type ValidatedExecRequest,
  validateExecRequest,
} from "@sandport/core";
import { assertCommandFits, OutputCollector, planStdin } from "@sandport/core/adapter";
import { cappedScript, daemonCommand, requestCommand } from "./command-scripts.js";
import { type CallTiming, type DaytonaContext, seconds } from "./context.js";
import { answerLost, mapDaytonaError, statusOf, wasRefused } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { EXEC_MARKER_ENV, RESERVED_ENV } from "./markers.js";
import type { ResolvedOptions } from "./options.js";
import { sweep } from "./run-script.js";

/** Largest stdin embedded in a command (base64); more is uploaded first. Leaves room for the command's own encoding. */
export const EMBEDDED_STDIN_BYTES = 32 * 1024;
/** Retries of a command start Daytona refused (429, 503): nothing ran. */
export const START_RETRY = { maxAttempts: 3, initialDelayMs: 250, maxDelayMs: 2_000 } as const;

/** A validated request, ready to send with `executeCommand`. */
export interface ExecPlan {
  /** The command string as the daemon gets it (see `daemonCommand`). */
  readonly command: string;
  /** Absolute working directory, sent as `cwd`. */
  readonly cwd: string;
  /** The request's environment and the exec marker, sent as `envs`. */
  readonly env: Record<string, string>;
  readonly marker: string;
  /** Run budget in ms; sent in whole seconds, rounded up. */
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** Stdin too large to embed: uploaded to `path` before the start; the command opens and deletes it. */
  readonly stdinUpload?: { readonly path: string; readonly content: Uint8Array };
}

/** Where a command's stdin comes from: the request's bytes (embedded or staged), else nothing (`/dev/null`). */
export function withStdin(
  options: ResolvedOptions,
  command: string,
  stdin: string | Uint8Array | undefined,
  cwd: string,
): { readonly command: string; readonly upload?: { readonly path: string; readonly content: Uint8Array } } {
  if (stdin === undefined) return { command: `${command} </dev/null` };
  const scratchDirectory = `${options.commandStateDirectory}/stdin`;
  return planStdin(command, stdin, {
    cwd,
    scratchDirectory,
    name: randomUUID(),
    embedLimitBytes: EMBEDDED_STDIN_BYTES,
  });
}

/** A request checked against the port's rules and the reserved env, with its absolute working directory. */
export function validRequest(
  options: ResolvedOptions,
  request: ExecRequest,
): { readonly valid: ValidatedExecRequest; readonly cwd: string } {
  const valid = validateExecRequest(request, { root: options.workspaceRoot, provider: PROVIDER });
  refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
  return { valid, cwd: toSandboxPath(options.workspaceRoot, valid.cwd) };
}

/**
 * Validates a request and turns it into what `executeCommand` takes: the
 * working directory, environment and timeout go into the API's own fields;
 * the command is the request as a shell command (`argv` quoted), its stdin
 * arranged, its output capped (`cappedScript`), encoded by `daemonCommand`.
 */
export function planExec(options: ResolvedOptions, request: ExecRequest): ExecPlan {
  const { valid, cwd } = validRequest(options, request);
  const stdin = withStdin(options, requestCommand(valid), valid.stdin, cwd);
  const maxOutputBytes = valid.maxOutputBytes ?? options.maxOutputBytes;
  const command = daemonCommand(cappedScript(stdin.command, maxOutputBytes));
  assertCommandFits(command, PROVIDER);
  const marker = randomUUID();
  return {
    command,
    cwd,
    env: { ...valid.env, [EXEC_MARKER_ENV]: marker },
    marker,
    timeoutMs: valid.timeoutMs ?? options.runBudgetMs,
    maxOutputBytes,
    ...(stdin.upload ? { stdinUpload: stdin.upload } : {}),
  };
}

/** Uploads a plan's large stdin, if it has one (one request). */
export async function stageStdin(
  sandbox: DaytonaSandbox,
  upload: ExecPlan["stdinUpload"],
  timing: CallTiming,
): Promise<void> {
  if (!upload) return;
  const source = Buffer.from(upload.content.buffer, upload.content.byteOffset, upload.content.byteLength);
  await sandbox.fs.uploadFiles([{ source, destination: upload.path }], seconds(timing.remainingMs()));
}

/**
 * Runs a command to completion with `executeCommand` (one request): stdout
 * and stderr come back merged, as Daytona runs it. Non-zero exits, the
 * timeout (`timedOut`) and the output cap (`truncated`) are results. The
 * call's deadline is the run budget plus `execGraceMs`. An abort or a
 * deadline kills the command and its descendants by their marker.
 */
export async function exec(
  context: DaytonaContext,
  handle: unknown,
  request: ExecRequest,
  op?: OpOptions,
): Promise<ExecResult> {
  const plan = planExec(context.options, request);
  const deadlineMs = plan.timeoutMs + context.options.timeouts.execGraceMs;
  return context.onSandbox(handle, op, "exec", deadlineMs, async (sandbox, call, sandboxId) => {
    context.known.markCommandRun(sandboxId);
    await stageStdin(sandbox, plan.stdinUpload, call);
    const kill = () => void sweep(sandbox, plan.marker, sandboxId);
    call.signal.addEventListener("abort", kill, { once: true });
    const started = performance.now();
    const timeoutSeconds = seconds(plan.timeoutMs);
    try {
      const response = await retry(
        () => sandbox.process.executeCommand(plan.command, plan.cwd, plan.env, timeoutSeconds),
        { policy: START_RETRY, signal: call.signal, isRetryable: wasRefused },
      );
      return resultOf(response, plan, started, sandboxId);
    } catch (error) {
      if (call.signal.aborted) throw call.signal.reason;
      const ranOut = performance.now() - started >= timeoutSeconds * 1000 - 250;
      if (statusOf(error) === 408 && ranOut) {
        // Daytona killed the command's process group; a descendant that left it is swept too.
        await sweep(sandbox, plan.marker, sandboxId);
        return { exitCode: null, stdout: "", stderr: "", truncated: false, timedOut: true, durationMs: since(started) };
      }
      const failure = startFailure(error, sandboxId);
      // The answer was lost while the command may still run: stop it rather than leave it running unseen.
      if (failure.details.outcomeUnknown === true) await sweep(sandbox, plan.marker, sandboxId);
      throw failure;
    } finally {
      call.signal.removeEventListener("abort", kill);
    }
  });
}

/** The port's result from Daytona's answer: the merged output capped, a truncated command's exit status dropped. */
function resultOf(
  response: { exitCode: number; result: string },
  plan: ExecPlan,
  started: number,
  sandboxId: string,
): ExecResult {
  if (response.exitCode === -1) {
    throw new SandportError({
      code: "NOT_FOUND",
      provider: PROVIDER,
      retryable: false,
      message: `daytona could not start the command in sandbox ${sandboxId}: does its working directory ${plan.cwd} exist? (${response.result.trim() || "no output"})`,
      details: { sandboxId, cwd: plan.cwd, exitCode: -1 },
    });
  }
  const output = new OutputCollector(plan.maxOutputBytes);
  output.push("stdout", response.result ?? "");
  return {
    exitCode: output.truncated ? null : response.exitCode,
    stdout: output.stdout,
    stderr: "",
    truncated: output.truncated,
    timedOut: false,
    durationMs: since(started),
  };
}

/** A start that failed: refused (nothing ran) or, when the answer was lost, with an unknown outcome. */
export function startFailure(error: unknown, sandboxId: string): SandportError {
  const mapped = mapDaytonaError(error, { operation: "exec", sandboxId });
  const status = statusOf(error);
  const unknown = answerLost(error) || mapped.code === "DEADLINE_EXCEEDED" || (status !== undefined && status >= 500);
  if (!unknown || wasRefused(error)) return mapped;
  return new SandportError({
    code: mapped.code,
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `${mapped.message} (the command may have run: its outcome is unknown)`,
    details: { ...mapped.details, outcomeUnknown: true },
  });
}

function since(started: number): number {
  return performance.now() - started;
}
