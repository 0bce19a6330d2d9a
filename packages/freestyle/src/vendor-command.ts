import { posix } from "node:path";
import { EXEC_MARKER_ENV, quoteShellArg, retry, SandportError } from "@sandport/core";
import {
  type CallBudget,
  type CommandRunOptions,
  createCallBudget,
  httpStatusOf,
  KILL_DEADLINE_MS,
  markerSweepScript,
  ranOutOfTime,
  type VendorCommand,
  type VendorEnd,
} from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { isNotFound, mapFreestyleError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { FreestyleExecResult } from "./internal/sdk-types.js";
import { fromHome } from "./options.js";

/** Retries of a command Freestyle refused before running it (429, 503). */
const SEND_RETRY = { maxAttempts: 3, initialDelayMs: 250, maxDelayMs: 2_000 } as const;
/**
 * Time the engine gives a command past its timeout: Freestyle enforces the
 * timeout it is sent and answers once the command ends, so its own timeout
 * (an answer without a status code) normally comes first.
 */
const TIMEOUT_SLACK_MS = 1_000;

/** A validated command, ready to send to `exec-await`. */
export interface CommandPlan {
  /** The whole script, run by the guest's shell in the home directory. */
  readonly command: string;
  /** The command's working directory, absolute (the script changes to it). */
  readonly cwd: string;
  /** Value of `EXEC_MARKER_ENV` for this command: its processes carry it. */
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

/**
 * Freestyle's vendor command for the kit's engine. `exec-await` answers once
 * the command ended (past the API's synchronous window the SDK polls the
 * backgrounded request), so the start returns at once and the answer is the
 * end, its output pushed then: a status code is an exit, none is Freestyle's
 * timeout when the command ran that long (else a kill). The SDK's requests
 * carry the call's deadline and signal (`budget`). The kill is the marker
 * sweep in the background (`killLater`), skipped once the answer came or its
 * failure says the command never ran.
 */
export function freestyleCommand(
  context: FreestyleContext,
  vmId: string,
  plan: CommandPlan,
  budget: CallBudget,
): VendorCommand {
  let mayRun = true;
  return {
    start: async (output, signal) => {
      const startedAt = performance.now();
      if (plan.stdinUpload) {
        const { path, content } = plan.stdinUpload;
        await (await context.vm(vmId, budget)).fs.writeFile(path, content, { mode: 0o600, signal });
      }
      const ended = send(context, vmId, plan, budget, signal).then(
        (answer): VendorEnd => {
          mayRun = false;
          output("stdout", answer.stdout ?? "");
          output("stderr", answer.stderr ?? "");
          if (typeof answer.statusCode === "number") return { kind: "exited", exitCode: answer.statusCode };
          const ranOut = ranOutOfTime(performance.now() - startedAt, plan.timeoutMs);
          return ranOut ? { kind: "timed-out" } : { kind: "killed" };
        },
        (error: unknown) => {
          if (SandportError.isInstance(error) && error.details.outcomeUnknown !== true) mayRun = false;
          throw error;
        },
      );
      return { pid: plan.marker, ended };
    },
    kill: async () => {
      if (mayRun) killLater(context, vmId, plan.marker);
    },
  };
}

/** The engine's options for `plan`: the slack past Freestyle's own timeout, and its send failures as they are. */
export function commandOptions(plan: CommandPlan, signal: AbortSignal): CommandRunOptions {
  return {
    provider: PROVIDER,
    timeoutMs: plan.timeoutMs + TIMEOUT_SLACK_MS,
    maxOutputBytes: plan.maxOutputBytes,
    signal,
    lostOutput: (error) => (SandportError.isInstance(error) ? error : mapFreestyleError(error, { operation: "exec" })),
  };
}

/** One `exec-await` of `plan`, repeated only while Freestyle refuses it before running it. */
function send(
  context: FreestyleContext,
  vmId: string,
  plan: CommandPlan,
  budget: CallBudget,
  signal: AbortSignal,
): Promise<FreestyleExecResult> {
  const once = async () => {
    const vm = await context.vm(vmId, budget);
    return vm
      .exec({
        command: plan.command,
        linuxUser: context.options.linuxUser,
        timeoutMs: plan.timeoutMs,
        env: { [EXEC_MARKER_ENV]: plan.marker },
        ...(plan.stdin === undefined ? {} : { stdin: plan.stdin }),
      })
      .catch((error: unknown) => {
        throw sendFailure(vmId, error);
      });
  };
  return retry(once, {
    policy: { ...SEND_RETRY, budgetMs: budget.remainingMs() },
    signal,
    isRetryable: (error) => SandportError.isInstance(error) && error.details.refused === true,
  });
}

/**
 * Kills, in the background, every process carrying `marker` (the kit's marker
 * sweep), after leaving a cancel file that stops the command should it reach
 * the VM later than the kill. A VM that is gone has nothing left to kill.
 * `settle()` waits for it; a failure is reported there.
 */
export function killLater(context: FreestyleContext, vmId: string, marker: string): void {
  const cancelDirectory = fromHome(context.options, posix.join(context.options.stateDirectory, "cancel"));
  const cancel = `${cancelDirectory}/${marker}`;
  const script = [
    `mkdir -p -- ${quoteShellArg(cancelDirectory)} && : > ${quoteShellArg(cancel)}`,
    markerSweepScript(EXEC_MARKER_ENV, marker),
  ].join("; ");
  context.background.track(async () => {
    const budget = createCallBudget(KILL_DEADLINE_MS);
    try {
      const vm = await context.vm(vmId, budget);
      await vm.exec({ command: script, linuxUser: context.options.linuxUser, timeoutMs: KILL_DEADLINE_MS });
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
