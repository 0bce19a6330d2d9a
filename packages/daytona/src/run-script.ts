import {
  EXEC_MARKER_ENV,
  enterWorkspaceScript,
  quoteShellArg,
  type RetryPolicy,
  retry,
  SandportError,
} from "@sandport/core";
import {
  type CallBudget,
  createCallBudget,
  KILL_DEADLINE_MS,
  markerSweepScript,
  workspaceEntry,
} from "@sandport/core/adapter";
import { daemonCommand } from "./command-scripts.js";
import { seconds } from "./context.js";
import { mapDaytonaError } from "./errors.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { DAYTONA_HOME } from "./options.js";

/** Retries of a request that is safe to repeat: a read, an upload of the same bytes, one of the runtime's own scripts. */
const REPEAT_RETRY = { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 2_000 } as const;

/** Where a request is made, for its errors. */
export interface RequestSite {
  readonly operation: string;
  readonly sandboxId: string;
  readonly path?: string;
}

/**
 * Runs a request that is safe to repeat, retried on 429, 5xx and dropped
 * connections (mapped `SandportError`s marked retryable), and on what
 * `retryAlso` accepts, its errors mapped at `site`.
 */
export function repeatable<T>(
  timing: CallBudget,
  site: RequestSite,
  work: () => Promise<T>,
  { policy = REPEAT_RETRY, retryAlso }: { policy?: RetryPolicy; retryAlso?: (error: SandportError) => boolean } = {},
): Promise<T> {
  return retry(
    async () => {
      try {
        return await work();
      } catch (error) {
        throw mapDaytonaError(error, site);
      }
    },
    {
      policy,
      isRetryable: (error) => SandportError.isInstance(error) && (error.retryable || retryAlso?.(error) === true),
      ...(timing.signal ? { signal: timing.signal } : {}),
    },
  );
}

/** What one of the runtime's own scripts printed (stdout and stderr merged) and how it exited. */
export interface ScriptResult {
  readonly exitCode: number;
  readonly output: string;
}

/**
 * Runs one of the runtime's own scripts (symlink guard, file operations,
 * `chmod`, a readiness probe, a kill) with `executeCommand`, in `cwd`, to its
 * end within the caller's time. They are all safe to repeat, so 429 and 5xx
 * answers are retried.
 */
export function runScript(
  sandbox: DaytonaSandbox,
  script: string,
  cwd: string | undefined,
  timing: CallBudget,
  site: RequestSite,
): Promise<ScriptResult> {
  const command = daemonCommand(script);
  return repeatable(timing, site, async () => {
    const response = await sandbox.process.executeCommand(command, cwd, undefined, seconds(timing.remainingMs()));
    return { exitCode: response.exitCode, output: response.result ?? "" };
  });
}

/**
 * Runs one of the runtime's own scripts in the workspace root ({@link runScript}):
 * it starts in the sandbox user's home, makes the workspace when missing (a
 * launch does not make it) by its path from there (`workspaceEntry`) and
 * enters it first, and exits 1 running nothing more when it can do neither,
 * saying so in its output.
 */
export function runInWorkspace(
  sandbox: DaytonaSandbox,
  script: string,
  workspace: string,
  timing: CallBudget,
  site: RequestSite,
): Promise<ScriptResult> {
  const { start, path } = workspaceEntry(DAYTONA_HOME, workspace);
  const failed = quoteShellArg(`sandport: the workspace root ${workspace} could not be made or entered`);
  const enter = `${enterWorkspaceScript(path)} || { echo ${failed}; exit 1; }`;
  return runScript(sandbox, `${enter}\n${script}`, start, timing, site);
}

/**
 * Best-effort kill of everything carrying `marker` (a command and all it
 * started), with its own budget. Failures are ignored: a command that
 * survives still ends at its own timeout, which is always set.
 */
export async function sweep(sandbox: DaytonaSandbox, marker: string, sandboxId: string): Promise<void> {
  await runScript(sandbox, markerSweepScript(EXEC_MARKER_ENV, marker), undefined, createCallBudget(KILL_DEADLINE_MS), {
    operation: "kill",
    sandboxId,
  }).catch(() => undefined);
}
