import { posix } from "node:path";
import { type CommandRef, retry, SandportError } from "@sandport/core";
import {
  type AsyncCommandSite,
  asyncCommands,
  asyncOutputCapScript,
  type OperationCall,
  OUTPUT_CAP_EXIT,
  OutputCollector,
  parseRunRecord,
  whenAbsent,
} from "@sandport/core/adapter";
import { type CommandPlan, planCommand, refusedOnly } from "./command-plan.js";
import { WATCHDOG_EXIT } from "./command-scripts.js";
import { type DaytonaContext, seconds } from "./context.js";
import { isNotFound, statusOf } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { repeatable } from "./run-script.js";
import { sendToSession } from "./session-run.js";

/** How long a start that found its session already created waits for the creator's command to appear. */
const CLAIM_WAIT_MS = 3_000;

/**
 * Where an async command lives: its Daytona session (one per session id, so
 * the session id is the idempotency key), the directory that claims its
 * session id, its run record (cap, start and end: Daytona keeps no times),
 * the mark its output cap leaves when it stopped it, and the mark its
 * watchdog leaves at its timeout.
 */
function recordsOf(stateDirectory: string, sessionId: string) {
  const session = `sandport-cmd-${sessionId}`;
  const claim = `${stateDirectory}/claims/${session}`;
  const timedOut = `${stateDirectory}/timeouts/${session}`;
  return { session, claim, run: `${claim}/run`, capped: `${claim}/capped`, timedOut };
}

/** An async command planned: its exec plan, where its session keeps its records, and its capped script. */
interface AsyncPlan {
  readonly plan: CommandPlan;
  readonly records: ReturnType<typeof recordsOf>;
  readonly command: string;
}

/**
 * `startCommand` starts a command in its own Daytona session without waiting
 * for it; the session id is the idempotency key. The first start creates the
 * session and runs the command in it; a retried, racing or later start finds
 * the session and returns its first command. Inside the sandbox the command
 * first claims its session id (`mkdir`), so even two starts that both found
 * the session empty run it once. The sandbox's watchdog stops it at its
 * timeout, and its output cap (the request's `maxOutputBytes`, else the
 * runtime's, through the kit's `asyncOutputCapScript`, merged) stops it once
 * its output passes it, whether anyone polls or not.
 *
 * `commandStatus`: `running` while Daytona records no exit code; then
 * `exited` with it, or with `null` when the sandbox's watchdog stopped it at
 * its timeout or its output cap stopped it. A command Daytona does not know
 * (never started here, or its session ended with a stop) rejects `NOT_FOUND`.
 *
 * `commandLogs`: the command's output so far (merged), complete once it has
 * exited; capped at the command's own `maxOutputBytes`. `durationMs` comes
 * from the run record the command's script keeps (Daytona records no times).
 */
export const { startCommand, commandStatus, commandLogs } = asyncCommands<DaytonaContext, AsyncPlan, DaytonaSandbox>({
  plan: (context, request, sessionId) => {
    const plan = planCommand(context.options, request, "session");
    const records = recordsOf(context.options.commandStateDirectory, sessionId);
    // The script's paths are relative to the working directory, as the session script's are.
    const relative = (path: string) => posix.relative(plan.cwd, path) || ".";
    const command = asyncOutputCapScript({
      command: plan.command,
      maxOutputBytes: plan.maxOutputBytes,
      merged: true,
      capMark: relative(records.capped),
      marker: plan.marker,
      runRecord: relative(records.run),
    });
    return { plan, records, command };
  },
  start: async (context, { plan, records, command }, sessionId, { sandboxId, instance: sandbox, call }) => {
    const { session } = records;
    const created = await retry(() => sandbox.process.createSession(session), refusedOnly(call.signal)).then(
      () => true,
      whenAbsent((error) => statusOf(error) === 409, false),
    );
    const existing = created ? undefined : await firstCommand(sandbox, session, call, CLAIM_WAIT_MS);
    if (existing) return existing;
    const parts = {
      watchdogMs: plan.timeoutMs,
      timeoutMark: records.timedOut,
      claim: records.claim,
      startRecord: records.run,
    };
    await sendToSession(context, sandbox, session, { ...plan, command }, call, parts);
    const first = await firstCommand(sandbox, session, call, 0);
    if (first) return first;
    throw new SandportError({
      code: "UNEXPECTED",
      provider: PROVIDER,
      retryable: false,
      message: `daytona started async command ${sessionId} but its session lists no command`,
      details: { sandboxId, sessionId },
    });
  },
  status: async (context, ref, site) => (await readCommand(context, ref, site, false)).end,
  logs: async (context, ref, site) => {
    const { end, record, logs } = await readCommand(context, ref, site, true);
    const output = new OutputCollector(record?.maxOutputBytes ?? context.options.maxOutputBytes);
    output.push("stdout", logs);
    return { output, end, runningForMs: record === undefined ? 0 : Date.now() - record.startedAt };
  },
});

/**
 * What `commandStatus` / `commandLogs` read: how the command ended, if it did
 * (its exit code; the watchdog's stop at its timeout or the output cap's
 * stop, each an exit code and its mark), and `withLogs` its run record (how
 * long it ran, its cap) and, last, its output.
 */
async function readCommand(
  context: DaytonaContext,
  valid: CommandRef,
  { sandboxId, instance: sandbox, call }: AsyncCommandSite<DaytonaSandbox>,
  withLogs: boolean,
) {
  const operation = withLogs ? "commandLogs" : "commandStatus";
  const { session, ...records } = recordsOf(context.options.commandStateDirectory, valid.sessionId);
  const read = <T>(request: () => Promise<T>, path?: string) =>
    repeatable(call, { operation, sandboxId, ...(path === undefined ? {} : { path }) }, request);
  const text = (path: string) =>
    read(() => sandbox.fs.downloadFile(path, seconds(call.remainingMs())), path).then(
      (content) => content.toString("utf8"),
      whenAbsent(isNotFound, undefined),
    );
  const { exitCode } = await read(() => sandbox.process.getSessionCommand(session, valid.commandId)).catch(
    (error: unknown) => {
      if (!isNotFound(error)) throw error;
      throw new SandportError({
        code: "NOT_FOUND",
        provider: PROVIDER,
        retryable: false,
        cause: error,
        message: `daytona sandbox ${sandboxId} has no async command ${valid.commandId} in session ${valid.sessionId}`,
        details: { sandboxId, ...valid },
      });
    },
  );
  // Only the logs report times and the cap: a status costs no extra request.
  const record = withLogs ? parseRunRecord(await text(records.run)) : undefined;
  // The kit's rule drops the exit code of a command its watchdog or its output cap stopped.
  const timedOut = exitCode === WATCHDOG_EXIT && (await text(records.timedOut)) !== undefined;
  const capped = exitCode === OUTPUT_CAP_EXIT && (await text(records.capped)) !== undefined;
  const durationMs = record?.endedAt === undefined ? 0 : Math.max(0, record.endedAt - record.startedAt);
  const end = exitCode === undefined ? ("running" as const) : { exitCode, durationMs, timedOut, capped };
  if (!withLogs) return { end, record, logs: "" };
  const output = await read(() => sandbox.process.getSessionCommandLogs(session, valid.commandId));
  return { end, record, logs: output.stdout || output.output || "" };
}

/** The id of the first command of a session, waiting up to `waitMs` for one to appear; `undefined` when none did. */
async function firstCommand(
  sandbox: DaytonaSandbox,
  session: string,
  call: OperationCall,
  waitMs: number,
): Promise<string | undefined> {
  const until = performance.now() + Math.min(waitMs, call.remainingMs());
  const site = { operation: "startCommand", sandboxId: sandbox.id };
  for (;;) {
    const found = await repeatable(call, site, () => sandbox.process.getSession(session)).then(
      (value) => value.commands?.[0]?.id,
      whenAbsent(isNotFound, undefined),
    );
    if (found || performance.now() >= until) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
