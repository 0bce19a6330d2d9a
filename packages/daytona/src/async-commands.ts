import {
  type CommandRef,
  type CommandStatus,
  type ExecResult,
  type OpOptions,
  retry,
  SandportError,
  type StartCommandRequest,
  splitStartCommandRequest,
  validateCommandRef,
} from "@sandport/core";
import {
  type AsyncCommandEnd,
  asyncCommandLogs,
  asyncCommandStatus,
  type OperationCall,
  OutputCollector,
} from "@sandport/core/adapter";
import { planCommand, refusedOnly } from "./command-plan.js";
import { WATCHDOG_EXIT } from "./command-scripts.js";
import { type DaytonaContext, seconds } from "./context.js";
import { isNotFound, statusOf } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox, DaytonaSessionCommand } from "./internal/sdk-types.js";
import { repeatable } from "./run-script.js";
import { sendToSession } from "./session-run.js";

/** How long a start that found its session already created waits for the creator's command to appear. */
const CLAIM_WAIT_MS = 3_000;

/** The Daytona session of an async command: one per session id, so the session id is the idempotency key. */
export function sessionOf(sessionId: string): string {
  return `sandport-cmd-${sessionId}`;
}

/**
 * Starts a command in its own Daytona session without waiting for it; the
 * session id is the idempotency key. The first start creates the session and
 * runs the command in it; a retried, racing or later start finds the session
 * and returns its first command. Inside the sandbox the command first claims
 * its session id (`mkdir`), so even two starts that both found the session
 * empty run it once. The sandbox's watchdog stops it at its timeout.
 */
export async function startCommand(
  context: DaytonaContext,
  handle: unknown,
  request: StartCommandRequest,
  op?: OpOptions,
): Promise<CommandRef> {
  const { sessionId, execRequest } = splitStartCommandRequest(request, PROVIDER);
  const plan = planCommand(context.options, execRequest, "session");
  return context.onInstance(
    handle,
    op,
    "startCommand",
    context.options.timeouts.lookupMs,
    async (sandbox, call, sandboxId) => {
      context.known.markCommandRun(sandboxId);
      const session = sessionOf(sessionId);
      const created = await retry(() => sandbox.process.createSession(session), refusedOnly(call.signal)).then(
        () => true,
        (error: unknown) => {
          if (statusOf(error) === 409) return false;
          throw error;
        },
      );
      if (!created) {
        const existing = await firstCommand(sandbox, session, call, CLAIM_WAIT_MS);
        if (existing) return { sessionId, commandId: existing.id };
      }
      const claim = `${context.options.commandStateDirectory}/claims/${session}`;
      await sendToSession(context, sandbox, session, plan, call, { watchdogMs: plan.timeoutMs, claim });
      const first = await firstCommand(sandbox, session, call, 0);
      if (first) return { sessionId, commandId: first.id };
      throw new SandportError({
        code: "UNEXPECTED",
        provider: PROVIDER,
        retryable: false,
        message: `daytona started async command ${sessionId} but its session lists no command`,
        details: { sandboxId, sessionId },
      });
    },
  );
}

/**
 * Where a started command is: `running` while Daytona records no exit code;
 * then `exited` with it, or with `null` when the sandbox's watchdog stopped it
 * at its timeout. A command Daytona does not know (never started here, or its
 * session ended with a stop) rejects `NOT_FOUND`.
 */
export function commandStatus(
  context: DaytonaContext,
  handle: unknown,
  ref: CommandRef,
  op?: OpOptions,
): Promise<CommandStatus> {
  return onCommand(context, handle, ref, op, "commandStatus", async (_sandbox, end) => asyncCommandStatus(end));
}

/**
 * The command's output so far (merged), complete once it has exited; capped
 * at the runtime's `maxOutputBytes`. Daytona records no times, so `durationMs` is 0.
 */
export function commandLogs(
  context: DaytonaContext,
  handle: unknown,
  ref: CommandRef,
  op?: OpOptions,
): Promise<ExecResult> {
  return onCommand(context, handle, ref, op, "commandLogs", async (sandbox, end, call, site) => {
    const session = sessionOf(ref.sessionId);
    const logs = await repeatable(call, site, () => sandbox.process.getSessionCommandLogs(session, ref.commandId));
    const output = new OutputCollector(context.options.maxOutputBytes);
    output.push("stdout", logs.stdout || logs.output || "");
    return asyncCommandLogs(output, end, 0);
  });
}

/** Runs `commandStatus` / `commandLogs`: the ref checked first, then `work` with how the command ended, if it did. */
async function onCommand<T>(
  context: DaytonaContext,
  handle: unknown,
  ref: CommandRef,
  op: OpOptions | undefined,
  operation: string,
  work: (
    sandbox: DaytonaSandbox,
    end: AsyncCommandEnd | "running",
    call: OperationCall,
    site: { operation: string; sandboxId: string },
  ) => Promise<T>,
): Promise<T> {
  const valid = validateCommandRef(ref, PROVIDER);
  return context.onInstance(
    handle,
    op,
    operation,
    context.options.timeouts.lookupMs,
    async (sandbox, call, sandboxId) => {
      const site = { operation, sandboxId };
      let command: DaytonaSessionCommand;
      try {
        command = await repeatable(call, site, () =>
          sandbox.process.getSessionCommand(sessionOf(valid.sessionId), valid.commandId),
        );
      } catch (error) {
        if (!isNotFound(error)) throw error;
        throw new SandportError({
          code: "NOT_FOUND",
          provider: PROVIDER,
          retryable: false,
          cause: error,
          message: `daytona sandbox ${sandboxId} has no async command ${valid.commandId} in session ${valid.sessionId}`,
          details: { sandboxId, ...valid },
        });
      }
      return work(sandbox, await exitOf(context, sandbox, valid, call, command.exitCode), call, site);
    },
  );
}

/** `running`, or how it ended: its exit code, or the watchdog's stop at its timeout (its exit code and its mark). Daytona records no times. */
async function exitOf(
  context: DaytonaContext,
  sandbox: DaytonaSandbox,
  ref: CommandRef,
  call: OperationCall,
  exit: number | undefined,
): Promise<AsyncCommandEnd | "running"> {
  if (exit === undefined) return "running";
  if (exit !== WATCHDOG_EXIT) return { exitCode: exit, durationMs: 0, timedOut: false };
  const mark = `${context.options.commandStateDirectory}/timeouts/${sessionOf(ref.sessionId)}`;
  const site = { operation: "commandStatus", sandboxId: sandbox.id, path: mark };
  const marked = await repeatable(call, site, () => sandbox.fs.downloadFile(mark, seconds(call.remainingMs()))).then(
    () => true,
    (error: unknown) => {
      if (isNotFound(error)) return false;
      throw error;
    },
  );
  // The kit's rule drops the exit code of a command its watchdog stopped.
  return { exitCode: exit, durationMs: 0, timedOut: marked };
}

/** The first command of a session, waiting up to `waitMs` for one to appear; `undefined` when none did. */
async function firstCommand(
  sandbox: DaytonaSandbox,
  session: string,
  call: OperationCall,
  waitMs: number,
): Promise<DaytonaSessionCommand | undefined> {
  const until = performance.now() + Math.min(waitMs, call.remainingMs());
  const site = { operation: "startCommand", sandboxId: sandbox.id };
  for (;;) {
    const found = await repeatable(call, site, () => sandbox.process.getSession(session)).then(
      (value) => value.commands?.[0],
      (error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      },
    );
    if (found || performance.now() >= until) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
