import { EXEC_MARKER_ENV, quoteShellArg, SandportError } from "@sandport/core";
import {
  type CallBudget,
  type CommandRunOptions,
  createCallBudget,
  KILL_DEADLINE_MS,
  markerSweepScript,
  type VendorCommand,
  type VendorEnd,
} from "@sandport/core/adapter";
import type { AgentCoreContext } from "./context.js";
import { toolPath } from "./context.js";
import { isNotFound, mapAgentCoreError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import { invokeTool, resultText } from "./invoke.js";
import { fromWorkingDirectory, type ResolvedOptions } from "./options.js";

/** A validated command, ready to send as `executeCommand`. */
export interface CommandPlan {
  /** The whole script, run by the session's shell in the working directory. */
  readonly command: string;
  /** The command's working directory, absolute in the session (named by a missing-directory error). */
  readonly cwd: string;
  /** Value of `EXEC_MARKER_ENV` for this command: its processes carry it. */
  readonly marker: string;
  /** Run budget in ms, kept by the engine (AgentCore takes no timeout). */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
  /** Stdin too large to embed: written to `path` (a session path) first; the command opens and removes it. */
  readonly stdinUpload?: { readonly path: string; readonly content: Uint8Array };
}

/**
 * AgentCore's vendor command for the kit's engine: one `executeCommand`
 * Invoke, sent once (never retried: Invoke has no idempotency token), whose
 * answer is the end, output pushed then. AgentCore takes no timeout, so the
 * engine keeps the run budget, and the kill is the marker sweep in the
 * background (`killLater`), skipped once the answer came or the failure says
 * the command never ran.
 */
export function agentCoreCommand(
  context: AgentCoreContext,
  sessionId: string,
  plan: CommandPlan,
  budget: CallBudget,
): VendorCommand {
  let mayRun = true;
  return {
    start: async (output) => {
      if (plan.stdinUpload) {
        const { path, content } = plan.stdinUpload;
        const target = toolPath(fromWorkingDirectory(context.options, path));
        const written = await invokeTool(
          context,
          sessionId,
          { name: "writeFiles", arguments: { content: [{ path: target, blob: content }] } },
          budget,
          false,
        ).catch((error: unknown) => {
          mayRun = false;
          throw mapAgentCoreError(error, { operation: "exec", sandboxId: sessionId });
        });
        if (written.isError) {
          mayRun = false;
          throw unexpected(sessionId, `could not stage stdin: ${resultText(written)}`);
        }
      }
      const ended = invokeTool(
        context,
        sessionId,
        { name: "executeCommand", arguments: { command: plan.command } },
        budget,
        false,
      ).then(
        (result): VendorEnd => {
          mayRun = false;
          const structured = result.structuredContent;
          output("stdout", structured?.stdout ?? "");
          output("stderr", structured?.stderr ?? "");
          if (typeof structured?.exitCode === "number") return { kind: "exited", exitCode: structured.exitCode };
          throw unexpected(sessionId, `executeCommand answered no exit code: ${resultText(result) || "no text"}`);
        },
        (error: unknown) => {
          const mapped = mapAgentCoreError(error, { operation: "exec", sandboxId: sessionId });
          if (mapped.details.outcomeUnknown === false || !mapAgentCoreError.outcomeUnknown(error)) mayRun = false;
          throw mapped;
        },
      );
      return { pid: plan.marker, ended };
    },
    kill: async () => {
      if (mayRun) killLater(context, sessionId, plan.marker);
    },
  };
}

/** The engine's options for `plan`. */
export function commandOptions(plan: CommandPlan, signal: AbortSignal): CommandRunOptions {
  return {
    provider: PROVIDER,
    timeoutMs: plan.timeoutMs,
    maxOutputBytes: plan.maxOutputBytes,
    signal,
    lostOutput: (error) => (SandportError.isInstance(error) ? error : mapAgentCoreError(error, { operation: "exec" })),
  };
}

/** The directory of cancel files: a kill that arrives before its command leaves one, and the command runs nothing. */
export function cancelDirectory(options: ResolvedOptions): string {
  return fromWorkingDirectory(options, `${options.stateDirectory}/cancel`);
}

/**
 * Kills, in the background, every process carrying `marker` (the kit's marker
 * sweep, one `executeCommand`), after leaving a cancel file that stops the
 * command should it start later than the kill. A session that is gone has
 * nothing left to kill. `settle()` waits for it; a failure is reported there.
 */
export function killLater(context: AgentCoreContext, sessionId: string, marker: string): void {
  const directory = cancelDirectory(context.options);
  const script = [
    `mkdir -p -- ${quoteShellArg(directory)} && : > ${quoteShellArg(`${directory}/${marker}`)}`,
    markerSweepScript(EXEC_MARKER_ENV, marker),
  ].join("; ");
  context.background.track(async () => {
    const budget = createCallBudget(KILL_DEADLINE_MS);
    try {
      await invokeTool(context, sessionId, { name: "executeCommand", arguments: { command: script } }, budget, false);
    } catch (error) {
      if (!isNotFound(error)) throw mapAgentCoreError(error, { operation: "kill", sandboxId: sessionId });
    }
  });
}

function unexpected(sessionId: string, message: string): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `agentcore session ${sessionId}: ${message}`,
    details: { sandboxId: sessionId },
  });
}
