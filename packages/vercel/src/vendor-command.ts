import { Writable } from "node:stream";
import { EXEC_MARKER_ENV, SandportError } from "@sandport/core";
import {
  type CallBudget,
  createCallBudget,
  httpStatusOf,
  KILL_DEADLINE_MS,
  markerSweepScript,
  missingCwd,
  type PlannedCommand,
  ranOutOfTime,
  type VendorCommand,
  type VendorEnd,
} from "@sandport/core/adapter";
import { mapVercelError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";

/**
 * A validated command, ready to send: argv, cwd and env (over the sandbox's)
 * each in the API's own field, the timeout always sent. A marker `""` is never killed.
 */
export interface CommandPlan extends PlannedCommand {
  /** The program. */
  readonly cmd: string;
  readonly args: string[];
  /** Stdin too large to embed: uploaded to `path` before the start; the command opens and removes it. */
  readonly stdinUpload?: { readonly path: string; readonly content: Uint8Array };
  /** Started in the home directory, it makes and enters the workspace root itself (`enteringWorkspace`). */
  readonly entersWorkspace?: boolean;
}

/**
 * Vercel's vendor command for the kit's engine. Vercel runs a waited command
 * in one request that streams its output and ends with its exit code, and
 * reports nothing sooner than output, so the start resolves as the request
 * is sent (its `pid` is the marker: the command's id comes with its end).
 * Vercel ends a command at the timeout sent with it (`timed-out`: a null or
 * signal's code at that time). A waited command cannot be killed through the
 * API, so a kill runs the kit's marker sweep, which kills every process
 * carrying this command's marker (a plan without one is never killed). A
 * start Vercel refused ran nothing: no kill, and its staged stdin is removed.
 */
export function vercelCommand(sandbox: VercelSandbox, plan: CommandPlan, fileMs: number): VendorCommand {
  let refused = false;
  let sweeping: Promise<void> | undefined;
  // Once per command: a kill and Vercel's own timeout may both ask for it.
  const sweep = (signal: AbortSignal): Promise<void> => {
    if (plan.marker === "") return Promise.resolve();
    const argv = ["sh", "-c", markerSweepScript(EXEC_MARKER_ENV, plan.marker)];
    sweeping ??= runQuietly(sandbox, argv, plan.cwd, { signal, remainingMs: () => KILL_DEADLINE_MS });
    return sweeping;
  };
  return {
    start: async (output, signal) => {
      await stageStdin(sandbox, plan, signal);
      const startedAt = performance.now();
      const running = sandbox.runCommand({
        ...commandFields(plan),
        stdout: sink((data) => output("stdout", data)),
        stderr: sink((data) => output("stderr", data)),
        signal,
      });
      const ended = running.then(
        async ({ exitCode }): Promise<VendorEnd> => {
          const ranOut = ranOutOfTime(performance.now() - startedAt, plan.timeoutMs);
          if (ranOut && (exitCode === null || exitCode >= 128)) {
            // Vercel killed it at its timeout; children that left its process group may live on.
            await sweep(AbortSignal.timeout(KILL_DEADLINE_MS)).catch(() => undefined);
            return { kind: "timed-out" };
          }
          return exitCode === null ? { kind: "killed" } : { kind: "exited", exitCode };
        },
        async (error: unknown): Promise<VendorEnd> => {
          refused = refusedBeforeStart(error);
          if (!signal.aborted) await discardStdin(sandbox, plan, createCallBudget(fileMs));
          throw startRefusal(error, plan, sandbox.name);
        },
      );
      return { pid: plan.marker, ended };
    },
    kill: async (_process, signal) => {
      if (!refused) await sweep(signal);
    },
  };
}

/**
 * The error of a command whose output stream broke: it was stopped and its
 * effects are unknown. A start Vercel answered with an error ran nothing, so
 * that error stands as it is.
 */
export function lostOutput(name: string, error: unknown, operation: string): SandportError {
  // A missing working directory (`startRefusal`): refused before the start, so nothing ran.
  if (SandportError.hasCode(error, "NOT_FOUND") && error.details?.cwd !== undefined) return error;
  const mapped = mapVercelError(error, { operation, sandboxId: name });
  if (refusedBeforeStart(error)) return mapped;
  return new SandportError({
    code: mapped.code === "NOT_FOUND" ? "NOT_FOUND" : "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `vercel lost the output of a command in sandbox ${name} (it was stopped; its effects are unknown): ${mapped.message}`,
    details: { sandboxId: name, outcomeUnknown: true },
  });
}

/** Uploads a plan's large stdin, if it has one (one request). */
export async function stageStdin(sandbox: VercelSandbox, plan: CommandPlan, signal: AbortSignal): Promise<void> {
  if (!plan.stdinUpload) return;
  await sandbox.writeFiles([{ ...plan.stdinUpload, mode: 0o600 }], { signal });
}

/** Removes a plan's staged stdin after a start that ran nothing (the command removes it otherwise). Best effort. */
export async function discardStdin(sandbox: VercelSandbox, plan: CommandPlan, budget: CallBudget): Promise<void> {
  if (!plan.stdinUpload) return;
  await runQuietly(sandbox, ["rm", "-f", "--", plan.stdinUpload.path], plan.cwd, budget).catch(() => undefined);
}

/** Runs one of the adapter's own housekeeping commands (a kill sweep, a clean-up) within `budget`, its output dropped. */
async function runQuietly(sandbox: VercelSandbox, argv: string[], cwd: string, budget: CallBudget): Promise<void> {
  const [cmd = "true", ...args] = argv;
  const timeoutMs = Math.max(1, budget.remainingMs());
  const signal = budget.signal ?? AbortSignal.timeout(timeoutMs);
  const stdout = sink(() => {});
  const stderr = sink(() => {});
  await sandbox.runCommand({ cmd, args, cwd, env: {}, timeoutMs, stdout, stderr, signal });
}

/** What a command start sends of a plan: argv, cwd, env and timeout, each in the API's own field. */
export function commandFields({ cmd, args, cwd, env, timeoutMs }: CommandPlan) {
  return { cmd, args, cwd, env, timeoutMs };
}

/**
 * A refused start as it stands, except a missing working directory, which is
 * `missingCwd` (`NOT_FOUND` naming it): Vercel answers it 400 `cwd <path> does
 * not exist`, and nothing ran.
 */
export function startRefusal(error: unknown, plan: CommandPlan, sandboxId: string): unknown {
  const message = error instanceof Error ? error.message : String(error);
  // SDK 3.0's APIError says only "Status code 400 is not ok" and keeps the answer's body in `text`.
  const body = (error as { text?: unknown } | null)?.text;
  const answer = typeof body === "string" ? `${message} ${body}` : message;
  if (httpStatusOf(error) !== 400 || !/\bcwd \S+ does not exist\b/.test(answer)) return error;
  return missingCwd(PROVIDER, plan.cwd, { sandboxId, reason: answer, cause: error });
}

/** True when Vercel answered a command start with an error: the command never ran. */
export function refusedBeforeStart(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== undefined && status >= 400;
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
