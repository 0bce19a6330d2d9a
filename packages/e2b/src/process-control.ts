import { EXEC_MARKER_ENV, retry, SandportError } from "@sandport/core";
import {
  type CallBudget,
  createCallBudget,
  errorName,
  httpStatusOf,
  isConnectionLost,
  KILL_DEADLINE_MS,
  markerSweepScript,
  missingCwd,
  type OutputStream,
} from "@sandport/core/adapter";
import type { CommandPlan } from "./command-plan.js";
import type { E2BContext } from "./context.js";
import { isSandboxNotFound, mapE2BError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { E2BCommandHandle, E2BSandbox } from "./internal/sdk-types.js";

/** Retries of a command start E2B refused (429, 5xx before the process existed). */
const START_RETRY = { maxAttempts: 3, initialDelayMs: 250, maxDelayMs: 2_000 } as const;

/**
 * Starts the process, retrying only when E2B provably refused before the
 * process existed (429, a 5xx answer, or an "unavailable" reply while the
 * sandbox still exists). A dropped connection is not retried: the command may
 * have started. `openStdin` keeps its stdin open for `sendStdin` (spawn).
 */
export function startProcess(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  plan: CommandPlan,
  signal: AbortSignal,
  output: (stream: OutputStream, data: string) => void,
  openStdin: boolean,
): Promise<E2BCommandHandle> {
  const timing = { ...createCallBudget(context.options.timeouts.lookupMs), signal };
  const start = () =>
    sandbox.commands
      .run(plan.command, {
        background: true,
        cwd: plan.processCwd,
        envs: plan.env,
        timeoutMs: plan.timeoutMs,
        stdin: openStdin,
        requestTimeoutMs: timing.remainingMs(),
        signal,
        onStdout: (data) => output("stdout", data),
        onStderr: (data) => output("stderr", data),
      })
      .catch(async (error: unknown) => {
        if (isMissingCwd(error))
          throw missingCwd(PROVIDER, plan.cwd, { sandboxId, reason: messageOf(error), cause: error });
        throw await classifyStartFailure(context, sandboxId, error, timing);
      });
  const isRetryable = (error: unknown) => SandportError.isInstance(error) && error.details.refused === true;
  return retry(start, { policy: START_RETRY, signal, isRetryable });
}

/**
 * envd's refusal of a working directory that does not exist: `invalid_argument`
 * (the SDK's `InvalidArgumentError`) saying `cwd '<path>' does not exist`,
 * before anything started.
 */
export function isMissingCwd(error: unknown): boolean {
  return errorName(error) === "InvalidArgumentError" && /\bcwd '[^']*' does not exist/.test(messageOf(error));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function classifyStartFailure(
  context: E2BContext,
  sandboxId: string,
  error: unknown,
  timing: CallBudget & { readonly signal: AbortSignal },
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

/** The stream of a running command broke: it was stopped, and what it did is unknown. */
export function lostOutput(sandboxId: string, pid: number | string, error: unknown): SandportError {
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
 * Best-effort kill of a command and its descendants: SIGKILL to its pid (when
 * known: a start that was cancelled may have started it anyway), then (when
 * it carries a marker) the kit's marker sweep. Resolves `false` when the
 * command was already gone or the kill failed; a command that survives a
 * failed kill still ends at its own timeout, which is always set.
 */
export async function killProcessTree(
  sandbox: E2BSandbox,
  pid: number | undefined,
  marker: string | undefined,
): Promise<boolean> {
  // No signal: the engine bounds the whole kill by its deadline, and the requests carry their own timeout.
  const options = { requestTimeoutMs: KILL_DEADLINE_MS };
  const killed = pid === undefined ? false : await sandbox.commands.kill(pid, options).catch(() => false);
  if (marker === undefined) return killed;
  try {
    const sweep = await sandbox.commands.run(markerSweepScript(EXEC_MARKER_ENV, marker), {
      background: true,
      timeoutMs: KILL_DEADLINE_MS,
      stdin: false,
      ...options,
    });
    await sweep.wait().catch(() => undefined);
  } catch {
    // Best effort: see above.
  }
  return killed;
}
