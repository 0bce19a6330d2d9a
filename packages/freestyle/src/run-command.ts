import { posix } from "node:path";
import { type ExecResult, quoteShellArg, retry, SandportError } from "@sandport/core";
import { httpStatusOf, markerSweepScript, OutputCollector } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { isNotFound, mapFreestyleError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { FreestyleExecResult } from "./internal/sdk-types.js";
import { EXEC_MARKER_ENV } from "./markers.js";
import { fromHome } from "./options.js";
import { budget, type CallTiming } from "./transport.js";

/** Retries of a command Freestyle refused before running it (429, 503). */
const SEND_RETRY = { maxAttempts: 3, initialDelayMs: 250, maxDelayMs: 2_000 } as const;
/** Deadline of the kill (marker sweep) after an abort, a deadline or a lost answer. */
const KILL_TIMEOUT_MS = 15_000;

/** A validated command, ready to send to `exec-await`. */
export interface CommandPlan {
  /** The whole script, run by the guest's shell in the home directory. */
  readonly command: string;
  /** Value of {@link EXEC_MARKER_ENV} for this command: its processes carry it. */
  readonly marker: string;
  /** Command timeout in ms; always sent. */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
  /** Stdin for the request itself, base64. */
  readonly stdin?: string;
  /** Stdin too large for the request: uploaded to `path` (a VM path) first; the command opens and removes it. */
  readonly stdinUpload?: { readonly path: string; readonly content: Uint8Array };
}

/** What one of the adapter's own scripts printed. */
export interface HelperResult {
  /** `null` when its timeout killed it. */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Sends `plan` to `exec-await` and waits for it, however long it takes (past
 * the API's synchronous window the SDK polls the backgrounded request), within
 * the call's deadline. Non-zero exits, timeouts and the output cap are results.
 * When the caller gives up first, or the answer is lost, the command is killed
 * by its marker in the background (`settle()` waits for that).
 */
export async function runCommand(
  context: FreestyleContext,
  vmId: string,
  plan: CommandPlan,
  call: CallTiming & { readonly signal: AbortSignal },
): Promise<ExecResult> {
  const started = performance.now();
  const { linuxUser } = context.options;
  if (plan.stdinUpload) {
    const { path, content } = plan.stdinUpload;
    const vm = await context.vm(vmId, call);
    await vm.fs.writeFile(path, content, { mode: 0o600, signal: call.signal });
  }
  const send = async () => {
    const vm = await context.vm(vmId, call);
    try {
      return await vm.exec({
        command: plan.command,
        linuxUser,
        timeoutMs: plan.timeoutMs,
        env: { [EXEC_MARKER_ENV]: plan.marker },
        ...(plan.stdin === undefined ? {} : { stdin: plan.stdin }),
      });
    } catch (error) {
      throw sendFailure(vmId, error);
    }
  };
  let killed = false;
  const kill = () => {
    if (!killed) killLater(context, vmId, plan.marker);
    killed = true;
  };
  // At once, not when the SDK notices: it may be sleeping between two polls of a backgrounded command.
  call.signal.addEventListener("abort", kill, { once: true });
  let answer: FreestyleExecResult;
  try {
    answer = await retry(send, {
      policy: { ...SEND_RETRY, budgetMs: call.remainingMs() },
      signal: call.signal,
      isRetryable: (error) => SandportError.isInstance(error) && error.details.refused === true,
    });
  } catch (error) {
    if (SandportError.isInstance(error) && error.details.outcomeUnknown === true) kill();
    throw error;
  } finally {
    call.signal.removeEventListener("abort", kill);
  }
  const output = new OutputCollector(plan.maxOutputBytes);
  output.push("stdout", answer.stdout ?? "");
  output.push("stderr", answer.stderr ?? "");
  const timedOut = typeof answer.statusCode !== "number";
  const exitCode = timedOut || output.truncated ? null : (answer.statusCode as number);
  return output.result(exitCode, performance.now() - started, timedOut);
}

/**
 * Runs one of the adapter's own short scripts (workspace setup, symlink
 * guard, kill) to completion within `timing`, with `stdin` when given.
 */
export async function runHelper(
  context: FreestyleContext,
  vmId: string,
  command: string,
  timing: CallTiming,
  stdin?: Uint8Array,
): Promise<HelperResult> {
  const vm = await context.vm(vmId, timing);
  const answer = await vm.exec({
    command,
    linuxUser: context.options.linuxUser,
    timeoutMs: Math.max(1, timing.remainingMs()),
    ...(stdin === undefined ? {} : { stdin: Buffer.from(stdin).toString("base64") }),
  });
  return {
    exitCode: typeof answer.statusCode === "number" ? answer.statusCode : null,
    stdout: answer.stdout ?? "",
    stderr: answer.stderr ?? "",
  };
}

/**
 * Kills, in the background, every process carrying `marker` (the kit's marker
 * sweep), after leaving a cancel file that stops the command should it reach
 * the VM later than the kill. A VM that is gone has nothing left to kill.
 */
export function killLater(context: FreestyleContext, vmId: string, marker: string): void {
  const cancelDirectory = fromHome(context.options, posix.join(context.options.stateDirectory, "cancel"));
  const cancel = `${cancelDirectory}/${marker}`;
  const script = [
    `mkdir -p -- ${quoteShellArg(cancelDirectory)} && : > ${quoteShellArg(cancel)}`,
    markerSweepScript(EXEC_MARKER_ENV, marker),
  ].join("; ");
  context.background.track(async () => {
    try {
      await runHelper(context, vmId, script, budget(KILL_TIMEOUT_MS));
    } catch (error) {
      if (!isNotFound(error)) throw mapFreestyleError(error, { operation: "kill", sandboxId: vmId });
    }
  });
}

/**
 * A failed `exec-await`, classified: refused before anything ran (429, 503;
 * retried), the VM gone (`NOT_FOUND`), or lost with the command possibly
 * running (`PROVIDER_UNAVAILABLE` with `outcomeUnknown`, not retryable).
 */
function sendFailure(vmId: string, error: unknown): SandportError {
  const mapped = mapFreestyleError(error, { operation: "exec", sandboxId: vmId });
  if (SandportError.isInstance(error)) return mapped;
  const status = httpStatusOf(error);
  if (status === 429 || status === 503) {
    return new SandportError({
      code: mapped.code,
      provider: PROVIDER,
      retryable: true,
      cause: error,
      message: `freestyle refused to run the command in VM ${vmId} (HTTP ${status}); nothing ran`,
      details: { ...mapped.details, refused: true },
    });
  }
  // An answer too large to keep for the poll (OUTPUT_LIMIT) says the command ran.
  if (mapped.code === "NOT_FOUND" || mapped.code === "OUTPUT_LIMIT" || !mapFreestyleError.outcomeUnknown(mapped))
    return mapped;
  return new SandportError({
    code: "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `freestyle lost the answer of a command in VM ${vmId} (${mapped.message}); it was stopped, its effects are unknown`,
    details: { ...mapped.details, outcomeUnknown: true },
  });
}
