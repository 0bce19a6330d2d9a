import { EXEC_MARKER_ENV, SandportError } from "@sandport/core";
import { type CallBudget, type CommandRunOptions, markerSweepScript, type VendorCommand } from "@sandport/core/adapter";
import type { Agent37Context } from "./context.js";
import { isNotFound, isProvisioningFailed, mapAgent37Error } from "./errors.js";
import { PROVIDER } from "./handle.js";

/** A command ready to send to exec. */
export interface CommandPlan {
  /** The whole script, run by `sh -c` (dash on the default template); it starts with `cd "$HOME"`. */
  readonly command: string;
  /** The command's working directory, absolute (the script changes to it). */
  readonly cwd: string;
  /** Value of `EXEC_MARKER_ENV` for this command: its processes carry it, so a sweep finds them. */
  readonly marker: string;
  /** Run budget in ms, enforced here (exec takes no timeout). */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
  /** Stdin too large to embed: uploaded to `path` (an instance path) first; the command opens and removes it. */
  readonly stdinUpload?: { readonly path: string; readonly content: Uint8Array };
}

/** The line every command starts with: exec starts commands in `/`, ours run from `$HOME`. */
export const FROM_HOME = 'cd -- "$HOME" || exit 125';

/**
 * Agent37's exec as the kit's vendor command. Exec is one synchronous,
 * buffered request, so the start returns at once and the answer is the end,
 * its output pushed then; an answer without a numeric `exit_code` is an
 * unknown outcome, never a success. The request is sent exactly once:
 * `provisioning_failed` (also what a command past the service's time cap
 * gets) and a lost answer may mean the command ran, or still runs.
 *
 * `serviceCut` says whether Agent37 cut the output itself (`truncated`).
 *
 * Aborting the request does not stop the command on Agent37. The kill
 * therefore aborts the request and sends a second exec that sweeps every
 * process carrying the command's marker (skipped once the answer came).
 */
export function agent37Command(
  context: Agent37Context,
  instanceId: string,
  plan: CommandPlan,
  budget: CallBudget,
): VendorCommand & { readonly serviceCut: boolean } {
  let answered = false;
  let serviceCut = false;
  const request = new AbortController();
  return {
    start: async (output, signal) => {
      if (plan.stdinUpload) {
        const { path, content } = plan.stdinUpload;
        const url = await context.instanceUrl(instanceId, "exec", budget);
        await context.client.writeFile(url, path, content, { ...budget, signal }).catch((error: unknown) => {
          throw mapAgent37Error(error, { operation: "exec", sandboxId: instanceId, path });
        });
      }
      const sent = AbortSignal.any([signal, request.signal]);
      const ended = context.client.exec(instanceId, plan.command, budget, sent).then(
        (answer) => {
          answered = true;
          serviceCut = answer.truncated === true;
          output("stdout", answer.stdout ?? "");
          output("stderr", answer.stderr ?? "");
          if (typeof answer.exit_code === "number") return { kind: "exited" as const, exitCode: answer.exit_code };
          throw unknownOutcome(instanceId, "exec answered without an exit code");
        },
        (error: unknown) => {
          throw execFailure(instanceId, error);
        },
      );
      return { pid: plan.marker, ended };
    },
    get serviceCut() {
      return serviceCut;
    },
    kill: async (_process, signal) => {
      request.abort(new Error("the command was stopped"));
      if (answered) return;
      await sweep(context, instanceId, plan.marker, signal);
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
    lostOutput: (error) => (SandportError.isInstance(error) ? error : mapAgent37Error(error, { operation: "exec" })),
  };
}

/** One exec that kills every process carrying `marker`; an instance that is gone has nothing left to kill. */
async function sweep(context: Agent37Context, instanceId: string, marker: string, signal: AbortSignal): Promise<void> {
  const script = markerSweepScript(EXEC_MARKER_ENV, marker);
  try {
    await context.client.exec(instanceId, script, { remainingMs: () => 10_000, signal });
  } catch (error) {
    if (!isNotFound(error)) throw mapAgent37Error(error, { operation: "kill", sandboxId: instanceId });
  }
}

/**
 * A failed exec: `provisioning_failed` and anything that may have reached
 * the instance are `outcomeUnknown` and never retried; a refusal (404, 400
 * for a stopped instance, 429) says nothing ran.
 */
function execFailure(instanceId: string, error: unknown): SandportError {
  const mapped = mapAgent37Error(error, { operation: "exec", sandboxId: instanceId });
  if (!isProvisioningFailed(error)) return mapped;
  return new SandportError({
    code: "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `agent37 exec in instance ${instanceId} failed with provisioning_failed (also what a command past Agent37's time cap gets): the command may have run, and may still run; it is not repeated`,
    details: { ...mapped.details, outcomeUnknown: true },
  });
}

function unknownOutcome(instanceId: string, why: string): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `agent37 exec in instance ${instanceId}: ${why}; its outcome is unknown`,
    details: { sandboxId: instanceId, operation: "exec", outcomeUnknown: true },
  });
}
