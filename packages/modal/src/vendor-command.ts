import { EXEC_MARKER_ENV, SandportError } from "@sandport/core";
import type { PlannedCommand, StdinCommand, VendorEnd } from "@sandport/core/adapter";
import {
  createCallBudget,
  KILL_DEADLINE_MS,
  markerSweepScript,
  missingCwd,
  processExited,
} from "@sandport/core/adapter";
import { grpcCodeOf, mapModalError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import { inScope } from "./internal/call-scope.js";
import type { ModalContainerProcess, ModalExecParams, ModalReadStream, ModalSandbox } from "./internal/sdk-types.js";

/** Slack on the server-side timeout, so the engine's own kill at the run budget comes first. */
const SERVER_TIMEOUT_SLACK_MS = 1_000;
/**
 * Largest piece of stdin sent in one `TaskExecStdinWrite`: gRPC's usual
 * 4 MiB message limit holds it with room; the SDK's own streamed writes use 256 KiB.
 */
export const STDIN_CHUNK_BYTES = 1024 * 1024;
/** How the SDK says an exec outlived its server-side timeout (its wait and reads run to the same deadline). */
const EXEC_DEADLINE = /^Deadline exceeded while (waiting for|streaming stdio)/;

/** A validated command, ready to start (the engine kills it after its run budget). */
export interface CommandPlan extends PlannedCommand {
  /** The program and its arguments (a shell script runs as `sh -c <script>`). */
  readonly argv: readonly string[];
  /** Bytes for stdin, written first; then stdin is closed, unless `interactive`. */
  readonly stdin?: Uint8Array;
  /** True for `spawn`: stdin stays open, and `stdin` is the engine's first write. */
  readonly interactive: boolean;
}

/**
 * Modal's vendor command for the kit's engine: the SDK's `exec` in binary mode
 * with a server-side timeout (the run budget, in whole seconds, plus a second:
 * the backstop of a kill that failed), stdout and stderr read as raw bytes,
 * stdin written and (unless interactive) closed, `wait()` read as the end.
 * Modal has no call that kills an exec: the kill is the kit's marker sweep,
 * run as a second exec.
 */
export function modalCommand(sandbox: ModalSandbox, plan: CommandPlan): StdinCommand {
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  const stdinFailure = (operation: string) => (error: unknown) => {
    // The command's stdin is gone once it has ended: the router says not found or failed precondition.
    if ([5, 9].includes(grpcCodeOf(error) ?? -1)) throw processExited(PROVIDER, error);
    throw mapModalError(error, { operation, sandboxId: sandbox.sandboxId });
  };
  return {
    rawOutput: true,
    start: async (output) => {
      const process = await sandbox
        .exec([...plan.argv], execParams(plan.cwd, plan.env, serverTimeoutMs(plan)))
        .catch((error: unknown) => {
          throw startRefusal(error, plan, sandbox.sandboxId);
        });
      const opened = process.stdin.getWriter();
      writer = opened;
      // The run outlives the port call that started it (spawn): its control-plane calls get their own budget.
      const runBudget = createCallBudget(serverTimeoutMs(plan) + KILL_DEADLINE_MS);
      const ended = inScope(runBudget, () => endOf(process, output));
      if (!plan.interactive) void feed(opened, plan.stdin);
      return { pid: plan.marker, ended };
    },
    kill: (_process, signal) => sweep(sandbox, plan, signal),
    stdin: {
      write: async (data) => {
        const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
        await writer?.write(bytes).catch(stdinFailure("write"));
      },
      close: async () => writer?.close().catch(stdinFailure("closeStdin")),
    },
  };
}

/** The engine's options for `plan` (Modal's lost-output error); the caller adds its signal and events. */
export function commandOptions(plan: CommandPlan, sandboxId: string) {
  return {
    provider: PROVIDER,
    timeoutMs: plan.timeoutMs,
    maxOutputBytes: plan.maxOutputBytes,
    lostOutput: (error: unknown) => lostOutput(sandboxId, error),
  };
}

/**
 * How the command ended: its code once both streams were read (`128 + n` for
 * a signal, as the SDK reports it); Modal's own timeout when the SDK says the
 * exec passed its deadline; otherwise the failure, which the engine reads as lost.
 */
async function endOf(
  process: ModalContainerProcess,
  output: (stream: "stdout" | "stderr", data: Uint8Array) => void,
): Promise<VendorEnd> {
  const reading = Promise.all([pump(process.stdout, "stdout", output), pump(process.stderr, "stderr", output)]);
  reading.catch(() => {});
  let exitCode: number;
  try {
    exitCode = await process.wait();
  } catch (error) {
    if (error instanceof Error && EXEC_DEADLINE.test(error.message)) return { kind: "timed-out" };
    throw error;
  }
  await reading;
  return { kind: "exited", exitCode };
}

/** Reads one output stream to its end, handing each chunk on. */
async function pump(
  source: ModalReadStream,
  stream: "stdout" | "stderr",
  output: (stream: "stdout" | "stderr", data: Uint8Array) => void,
): Promise<void> {
  const reader = source.getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) output(stream, chunk.value);
  } finally {
    reader.releaseLock();
  }
}

/**
 * The plan's stdin bytes (one write per {@link STDIN_CHUNK_BYTES}), then
 * end-of-file. A command that ended first just never read them, as with a closed pipe.
 */
async function feed(writer: WritableStreamDefaultWriter<Uint8Array>, stdin: Uint8Array | undefined): Promise<void> {
  try {
    for (let offset = 0; stdin !== undefined && offset < stdin.byteLength; offset += STDIN_CHUNK_BYTES) {
      await writer.write(stdin.subarray(offset, offset + STDIN_CHUNK_BYTES));
    }
    await writer.close();
  } catch {
    // Its exit says what happened.
  }
}

/**
 * The kill of a command's process tree: the kit's marker sweep (SIGKILL to
 * every process carrying the command's marker), as one exec, awaited; its
 * control-plane calls stop at the engine's kill deadline (`signal`).
 */
function sweep(sandbox: ModalSandbox, plan: CommandPlan, signal: AbortSignal): Promise<void> {
  const script = ["sh", "-c", markerSweepScript(EXEC_MARKER_ENV, plan.marker)];
  return inScope({ ...createCallBudget(KILL_DEADLINE_MS), signal }, async () => {
    const killer = await sandbox.exec(script, execParams(plan.cwd, {}, KILL_DEADLINE_MS));
    await killer.stdin.getWriter().close();
    await killer.wait();
  });
}

function execParams(cwd: string, env: Readonly<Record<string, string>>, timeoutMs: number): ModalExecParams {
  return { mode: "binary", stdout: "pipe", stderr: "pipe", workdir: cwd, env: { ...env }, timeoutMs };
}

/** The server-side timeout: the run budget in whole seconds, plus the slack. */
function serverTimeoutMs(plan: CommandPlan): number {
  return Math.ceil(plan.timeoutMs / 1000) * 1000 + SERVER_TIMEOUT_SLACK_MS;
}

/** A command whose output or exit was lost: `NOT_FOUND` when its sandbox is gone, else unavailable; stopped, effects unknown. */
function lostOutput(sandboxId: string, error: unknown): SandportError {
  const mapped = mapModalError(error, { operation: "exec", sandboxId });
  return new SandportError({
    code: mapped.code === "NOT_FOUND" ? "NOT_FOUND" : "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `modal lost a running command's output or exit in sandbox ${sandboxId} (it was stopped; its effects are unknown)`,
    details: { sandboxId, outcomeUnknown: true },
  });
}

/**
 * A refused exec as it stands, except a missing working directory, which is
 * `missingCwd` (`NOT_FOUND` naming it): the command router answers gRPC
 * NOT_FOUND `workdir <path> does not exist`, and nothing ran.
 */
export function startRefusal(error: unknown, plan: CommandPlan, sandboxId: string): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (grpcCodeOf(error) !== 5 || !/\bworkdir \S+ does not exist\b/.test(message)) return error;
  return missingCwd(PROVIDER, plan.cwd, { sandboxId, reason: message, cause: error });
}
