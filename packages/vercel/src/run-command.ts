import { Writable } from "node:stream";
import { type ExecEvent, type ExecResult, SandportError } from "@sandport/core";
import { httpStatusOf, markerSweepScript, OutputCollector } from "@sandport/core/adapter";
import { budget, type CallTiming } from "./context.js";
import { mapVercelError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";
import { EXEC_MARKER_ENV } from "./markers.js";

/** Deadline of the best-effort kill after a timeout, abort, output overflow or lost stream. */
const KILL_TIMEOUT_MS = 10_000;
/** Deadline of uploading stdin staged for a command, and of removing it after a start that ran nothing. */
const STAGE_TIMEOUT_MS = 60_000;
/** Output cap of the adapter's own helper scripts (symlink guard, session claim, kill). */
const SCRIPT_OUTPUT_BYTES = 1024 * 1024;
/** Encodes the text the SDK hands over back to its UTF-8 bytes. */
const encoder = new TextEncoder();

/** A validated command, ready to send: argv, cwd and env each in the API's own field. */
export interface CommandPlan {
  /** The program. */
  readonly cmd: string;
  readonly args: string[];
  /** Absolute working directory inside the sandbox. */
  readonly cwd: string;
  /** Per-command environment (over the sandbox's), the kill marker included. */
  readonly env: Record<string, string>;
  /** Value of {@link EXEC_MARKER_ENV} for this command: how a kill finds its whole tree. */
  readonly marker: string;
  /** Command timeout in ms; always sent. */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
  /** Stdin too large to embed: uploaded to `path` before the start; the command opens and removes it. */
  readonly stdinUpload?: { readonly path: string; readonly content: Uint8Array };
}

/** Uploads a plan's large stdin, if it has one (one request). */
export async function stageStdin(sandbox: VercelSandbox, plan: CommandPlan, timing: CallTiming): Promise<void> {
  if (!plan.stdinUpload) return;
  await sandbox.writeFiles([{ ...plan.stdinUpload, mode: 0o600 }], { signal: timing.signal });
}

/** Removes a plan's staged stdin after a start that ran nothing (the command removes it otherwise). Best effort. */
export async function discardStdin(sandbox: VercelSandbox, plan: CommandPlan): Promise<void> {
  if (!plan.stdinUpload) return;
  const remove: CommandPlan = { ...helper(["rm", "-f", "--", plan.stdinUpload.path], plan.cwd), marker: plan.marker };
  await runCommand(sandbox, remove, budget(STAGE_TIMEOUT_MS).signal).catch(() => undefined);
}

/** A plan for one of the adapter's own commands, run in `cwd` within the caller's time; it carries no marker. */
export function helper(argv: readonly string[], cwd: string, timeoutMs = KILL_TIMEOUT_MS): Omit<CommandPlan, "marker"> {
  const [cmd = "true", ...args] = argv;
  return { cmd, args, cwd, env: {}, timeoutMs: Math.max(1, timeoutMs), maxOutputBytes: SCRIPT_OUTPUT_BYTES };
}

/** Runs one of the adapter's own commands to completion, within the caller's time and signal. */
export function runHelper(
  sandbox: VercelSandbox,
  argv: readonly string[],
  cwd: string,
  call: { readonly signal: AbortSignal; remainingMs(): number },
): Promise<ExecResult> {
  return runCommand(sandbox, { ...helper(argv, cwd, call.remainingMs()), marker: "" }, call.signal);
}

/**
 * Runs `plan` in `sandbox` and waits for it, its output streaming in the same
 * request: non-zero exits, timeouts and the output cap are results. Shared
 * by `exec`, `execStream` and the adapter's own commands; `emit` receives
 * `started` (as the start is sent: Vercel reports nothing sooner than output)
 * and output events as they arrive.
 *
 * A waited command cannot be killed through the API (its id comes with its
 * end), so a kill (abort, output cap, a stream that broke, and stray children
 * after a timeout) runs the kit's marker sweep, which kills every process
 * carrying this command's marker.
 */
export async function runCommand(
  sandbox: VercelSandbox,
  plan: CommandPlan,
  signal: AbortSignal,
  emit?: (event: ExecEvent) => void,
): Promise<ExecResult> {
  const started = performance.now();
  let cappedAt: number | undefined;
  let killing: Promise<void> | undefined;
  const kill = () => {
    killing ??= plan.marker === "" ? Promise.resolve() : sweep(sandbox, plan);
    return killing;
  };
  const output = new OutputCollector(
    plan.maxOutputBytes,
    (stream, data) => emit?.({ type: stream, data, bytes: encoder.encode(data) }),
    () => {
      cappedAt ??= performance.now();
      void kill();
    },
  );
  const result = (exitCode: number | null, timedOut = false) =>
    output.result(exitCode, performance.now() - started, timedOut);
  emit?.({ type: "started" });
  let exitCode: number | null;
  try {
    const finished = await sandbox.runCommand({
      cmd: plan.cmd,
      args: plan.args,
      cwd: plan.cwd,
      env: plan.env,
      timeoutMs: plan.timeoutMs,
      stdout: sink((data) => output.push("stdout", data)),
      stderr: sink((data) => output.push("stderr", data)),
      signal,
    });
    exitCode = finished.exitCode;
  } catch (error) {
    if (signal.aborted) {
      await kill();
      throw signal.reason;
    }
    if (cappedAt !== undefined) return result(null);
    if (refusedBeforeStart(error)) throw error;
    // The stream broke while the command may still run: stop it, and say its effects are unknown.
    await kill();
    throw lostOutput(sandbox.name, error);
  }
  if (cappedAt !== undefined) return result(null);
  const ranOut = performance.now() - started >= plan.timeoutMs - 50;
  if (ranOut && (exitCode === null || exitCode >= 128)) {
    // Vercel killed it at its timeout; children that left its process group may live on.
    await kill();
    return result(null, true);
  }
  return result(exitCode);
}

/** A `Writable` the SDK writes each log line's text to. */
function sink(receive: (data: string) => void): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: unknown, _encoding, done) {
      receive(typeof chunk === "string" ? chunk : String(chunk));
      done();
    },
  });
}

/** True when Vercel answered a command start with an error: the command never ran. */
export function refusedBeforeStart(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== undefined && status >= 400;
}

/** Kills every process carrying `plan`'s marker: best effort, on its own deadline. */
async function sweep(sandbox: VercelSandbox, plan: CommandPlan): Promise<void> {
  const script = helper(["sh", "-c", markerSweepScript(EXEC_MARKER_ENV, plan.marker)], plan.cwd);
  await runCommand(sandbox, { ...script, marker: "" }, budget(KILL_TIMEOUT_MS).signal).catch(() => undefined);
}

function lostOutput(name: string, error: unknown): SandportError {
  const mapped = mapVercelError(error, { operation: "exec", sandboxId: name });
  return new SandportError({
    code: mapped.code === "NOT_FOUND" ? "NOT_FOUND" : "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `vercel lost the output of a command in sandbox ${name} (it was stopped; its effects are unknown): ${mapped.message}`,
    details: { sandboxId: name, outcomeUnknown: true },
  });
}
