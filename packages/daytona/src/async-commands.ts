import { posix } from "node:path";
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
  asyncOutputCapScript,
  type OperationCall,
  OUTPUT_CAP_EXIT,
  OutputCollector,
  parseRunRecord,
  type RunRecord,
} from "@sandport/core/adapter";
import { type CommandPlan, planCommand, refusedOnly } from "./command-plan.js";
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
 * Where an async command's records live: the directory that claims its
 * session id, its run record (cap, start and end: Daytona keeps no times)
 * and the mark its output cap leaves when it stopped it.
 */
function recordsOf(context: DaytonaContext, sessionId: string) {
  const claim = `${context.options.commandStateDirectory}/claims/${sessionOf(sessionId)}`;
  return { claim, run: `${claim}/run`, capped: `${claim}/capped` };
}

/**
 * The plan with its command run through the kit's output cap: the merged
 * output passes on one byte past the request's cap at most, and the command
 * is stopped once it passes it, with nobody polling. Its paths are relative
 * to the working directory, as the session script's are.
 */
function cappedPlan(context: DaytonaContext, plan: CommandPlan, sessionId: string): CommandPlan {
  const records = recordsOf(context, sessionId);
  const relative = (path: string) => posix.relative(plan.cwd, path) || ".";
  const command = asyncOutputCapScript({
    command: plan.command,
    maxOutputBytes: plan.maxOutputBytes,
    merged: true,
    capMark: relative(records.capped),
    marker: plan.marker,
    runRecord: relative(records.run),
  });
  return { ...plan, command };
}

/**
 * Starts a command in its own Daytona session without waiting for it; the
 * session id is the idempotency key. The first start creates the session and
 * runs the command in it; a retried, racing or later start finds the session
 * and returns its first command. Inside the sandbox the command first claims
 * its session id (`mkdir`), so even two starts that both found the session
 * empty run it once. The sandbox's watchdog stops it at its timeout, and its
 * output cap (the request's `maxOutputBytes`, else the runtime's) stops it
 * once its output passes it, whether anyone polls or not.
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
      const { claim } = recordsOf(context, sessionId);
      const capped = cappedPlan(context, plan, sessionId);
      await sendToSession(context, sandbox, session, capped, call, { watchdogMs: plan.timeoutMs, claim });
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
 * at its timeout or its output cap stopped it. A command Daytona does not know (never started here, or its
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
 * at the command's own `maxOutputBytes`. `durationMs` comes from the run
 * record the command's script keeps (Daytona records no times).
 */
export function commandLogs(
  context: DaytonaContext,
  handle: unknown,
  ref: CommandRef,
  op?: OpOptions,
): Promise<ExecResult> {
  return onCommand(context, handle, ref, op, "commandLogs", async (sandbox, end, call, site, record) => {
    const session = sessionOf(ref.sessionId);
    const logs = await repeatable(call, site, () => sandbox.process.getSessionCommandLogs(session, ref.commandId));
    const output = new OutputCollector(record?.maxOutputBytes ?? context.options.maxOutputBytes);
    output.push("stdout", logs.stdout || logs.output || "");
    const runningFor = record === undefined ? 0 : Date.now() - record.startedAt;
    return asyncCommandLogs(output, end, runningFor);
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
    record: RunRecord | undefined,
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
      // Only the logs report times and the cap: a status costs no extra request.
      const path = recordsOf(context, valid.sessionId).run;
      const record =
        operation === "commandLogs" ? parseRunRecord(await readRecord(sandbox, path, call, site)) : undefined;
      const end = await exitOf(context, sandbox, valid, call, command.exitCode, record);
      return work(sandbox, end, call, site, record);
    },
  );
}

/**
 * `running`, or how it ended: its exit code, the watchdog's stop at its
 * timeout, or its output cap's stop (each an exit code and its mark), and how
 * long it ran, from its run record.
 */
async function exitOf(
  context: DaytonaContext,
  sandbox: DaytonaSandbox,
  ref: CommandRef,
  call: OperationCall,
  exit: number | undefined,
  record: RunRecord | undefined,
): Promise<AsyncCommandEnd | "running"> {
  if (exit === undefined) return "running";
  const durationMs = record?.endedAt === undefined ? 0 : Math.max(0, record.endedAt - record.startedAt);
  if (exit === WATCHDOG_EXIT) {
    const mark = `${context.options.commandStateDirectory}/timeouts/${sessionOf(ref.sessionId)}`;
    // The kit's rule drops the exit code of a command its watchdog stopped.
    return { exitCode: exit, durationMs, timedOut: await marked(sandbox, mark, call) };
  }
  if (exit === OUTPUT_CAP_EXIT) {
    const capped = await marked(sandbox, recordsOf(context, ref.sessionId).capped, call);
    return { exitCode: exit, durationMs, timedOut: false, capped };
  }
  return { exitCode: exit, durationMs, timedOut: false };
}

/** Whether the mark at `path` is there. */
async function marked(sandbox: DaytonaSandbox, path: string, call: OperationCall): Promise<boolean> {
  const site = { operation: "commandStatus", sandboxId: sandbox.id, path };
  return repeatable(call, site, () => sandbox.fs.downloadFile(path, seconds(call.remainingMs()))).then(
    () => true,
    (error: unknown) => {
      if (isNotFound(error)) return false;
      throw error;
    },
  );
}

/** The run record's text; `undefined` when there is none (a command started before there were run records). */
async function readRecord(
  sandbox: DaytonaSandbox,
  path: string,
  call: OperationCall,
  site: { operation: string; sandboxId: string },
): Promise<string | undefined> {
  return repeatable(call, { ...site, path }, () => sandbox.fs.downloadFile(path, seconds(call.remainingMs()))).then(
    (content) => content.toString("utf8"),
    (error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    },
  );
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
