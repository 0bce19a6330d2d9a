import { type CommandRef, quoteArgv, SandportError, sleep } from "@sandport/core";
import {
  type AsyncCommandEnd,
  assertCommandFits,
  asyncCommands,
  asyncOutputCapScript,
  createCallBudget,
  type OperationCall,
  OUTPUT_CAP_EXIT,
  OutputCollector,
  ranOutOfTime,
  unknownCommand,
} from "@sandport/core/adapter";
import type { VercelContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { planCommand } from "./exec.js";
import { PROVIDER } from "./handle.js";
import type { VercelCommand, VercelSandbox } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { SessionRecords } from "./session-records.js";
import {
  type CommandPlan,
  commandFields,
  discardStdin,
  refusedBeforeStart,
  stageStdin,
  startRefusal,
} from "./vendor-command.js";

/** How long `commandLogs` of a running command waits for more output once the replayed lines stop. */
const LOGS_QUIET_MS = 200;
/** The longest `commandLogs` of a running command reads its live output. */
const LOGS_WINDOW_MS = 2_000;

/**
 * `startCommand` starts a command as a Vercel detached command; the session
 * id is the idempotency key. Vercel commands have no caller-chosen key, so a
 * session is claimed inside the sandbox first (one command: `mkdir` is
 * atomic, see `session-records.ts`): the start that claims it starts the
 * command and records its id there; any other start (a retry, a racing call,
 * a call after the command ended, from any instance) waits for that record
 * and returns the same command, which never runs twice. A new session costs
 * three requests (claim, start, record), a known one one.
 *
 * The command runs through the kit's output cap (`asyncOutputCapScript`):
 * each stream reaches Vercel's log one byte past the request's
 * `maxOutputBytes` (else the runtime's) at most, and the command is stopped
 * once its output passes the cap, whether anyone polls or not.
 *
 * A claim whose answer was lost is asked again (the claim carries this
 * call's nonce, so it recognises itself). A start whose answer was lost may
 * have run: the session is then recorded as lost, and every later start with
 * its id is refused (`UNEXPECTED`) rather than run a second copy.
 *
 * `commandStatus` reads Vercel's own record of the command (`getCommand`):
 * `running` while it has no exit code; then `exited` with it, or `null` when
 * it was killed at its timeout. An unknown command (or one of an earlier
 * session of a stopped sandbox) rejects `NOT_FOUND`.
 *
 * `commandLogs`: all of its output once it has exited (Vercel replays its
 * log from the first line); while it runs, what the log stream delivers until
 * it has been quiet for 200 ms (2 s at most). Capped at the command's own
 * `maxOutputBytes`, recorded at its start.
 */
export const { startCommand, commandStatus, commandLogs } = asyncCommands<VercelContext, CommandPlan, VercelSandbox>({
  plan: (context, request, sessionId) =>
    cappedPlan(planCommand(context.options, request), SessionRecords.capMarkOf(context.options, sessionId)),
  start: async (context, plan, sessionId, { sandboxId: name, instance: sandbox, call }) => {
    const { options } = context;
    const records = new SessionRecords(sandbox, options, sessionId);
    const claim = await records.claim(call);
    if (!claim.claimed) return claim.commandId;
    // Nothing ran yet: a failure frees the session for the next start (and its staged stdin).
    const release = async () => {
      await records.release(call);
      await discardStdin(sandbox, plan, createCallBudget(options.timeouts.fileMs));
    };
    await stageStdin(sandbox, plan, call.signal).catch(async (error: unknown) => {
      await release();
      throw error;
    });
    let command: VercelCommand;
    try {
      command = await sandbox.runCommand({ ...commandFields(plan), detached: true, signal: call.signal });
    } catch (error) {
      if (refusedBeforeStart(error)) {
        await release();
        throw startRefusal(error, plan, name);
      }
      // It may have run: later starts of this session are refused at once rather than run it again.
      await records.recordLost(AbortSignal.timeout(options.timeouts.fileMs));
      throw call.signal.aborted ? error : startLost(name, sessionId, error);
    }
    await records.recordStart(command.cmdId, plan, call.signal);
    return command.cmdId;
  },
  status: async (context, ref, { instance: sandbox, call }) =>
    endOf(context.options, sandbox, ref, await commandOf(sandbox, ref, call), call),
  logs: async (context, ref, { instance: sandbox, call }) => {
    const command = await commandOf(sandbox, ref, call);
    const records = new SessionRecords(sandbox, context.options, ref.sessionId);
    const recorded = await records.recorded(command.cmdId, call.signal);
    const output = new OutputCollector(recorded?.maxOutputBytes ?? context.options.maxOutputBytes);
    await readLogs(command, output, command.exitCode === null, call);
    const end = await endOf(context.options, sandbox, ref, command, call);
    return { output, end, runningForMs: Date.now() - command.startedAt };
  },
});

/** The command as Vercel reports it; an unknown one is `NOT_FOUND`. */
async function commandOf(sandbox: VercelSandbox, ref: CommandRef, call: OperationCall): Promise<VercelCommand> {
  try {
    return await sandbox.getCommand(ref.commandId, { signal: call.signal });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    const why = `no command ${ref.commandId} in the current session of the sandbox (session id ${ref.sessionId})`;
    throw unknownCommand(PROVIDER, ref, why);
  }
}

/**
 * How a command ended, from Vercel's record of it: `running` while it has no
 * exit code. Its output cap stopped it when it exits {@link OUTPUT_CAP_EXIT}
 * and the cap's mark is there; it was killed at its timeout when it has a
 * signal's exit code (128 + n) after at least the timeout recorded at its
 * start. Those records are read only for such codes, so a normal exit costs
 * no extra request.
 */
async function endOf(
  options: ResolvedOptions,
  sandbox: VercelSandbox,
  ref: CommandRef,
  command: VercelCommand,
  call: OperationCall,
): Promise<AsyncCommandEnd | "running"> {
  const { exitCode } = command;
  if (exitCode === null) return "running";
  const durationMs = command.durationMs ?? Date.now() - command.startedAt;
  if (exitCode < 128) return { exitCode, durationMs, timedOut: false };
  const records = new SessionRecords(sandbox, options, ref.sessionId);
  if (exitCode === OUTPUT_CAP_EXIT && (await records.capped(call.signal))) {
    return { exitCode, durationMs, timedOut: false, capped: true };
  }
  const timeoutMs = (await records.recorded(command.cmdId, call.signal))?.timeoutMs;
  return { exitCode, durationMs, timedOut: timeoutMs !== undefined && ranOutOfTime(durationMs, timeoutMs) };
}

/**
 * The plan with its command run through the kit's output cap, as `sh -c`.
 * The script carries the marker like the command (Vercel gives the whole
 * command one environment), so the cap stops only the command's own process
 * and a writer it left dies at its next write.
 */
function cappedPlan(plan: CommandPlan, capMark: string): CommandPlan {
  const script = asyncOutputCapScript({
    command: quoteArgv([plan.cmd, ...plan.args]),
    maxOutputBytes: plan.maxOutputBytes,
    merged: false,
    capMark,
  });
  assertCommandFits(script, PROVIDER);
  return { ...plan, cmd: "sh", args: ["-c", script] };
}

/** Reads the command's log stream into `output`: to its end, or while `live`, until it goes quiet. */
async function readLogs(command: VercelCommand, output: OutputCollector, live: boolean, call: OperationCall) {
  const stream = command.logs({ signal: call.signal });
  const lines = stream[Symbol.asyncIterator]();
  const until = Date.now() + LOGS_WINDOW_MS;
  try {
    for (;;) {
      const next = lines.next();
      const quiet = Math.min(LOGS_QUIET_MS, until - Date.now());
      const line = live ? await Promise.race([next, sleep(Math.max(0, quiet)).then(() => undefined)]) : await next;
      if (line === undefined) {
        // Quiet long enough: the stream is closed, and the read it leaves pending ends with it.
        next.catch(() => undefined);
        return;
      }
      if (line.done) return;
      output.push(line.value.stream, line.value.data);
    }
  } finally {
    stream.close();
  }
}

function startLost(name: string, sessionId: string, cause: unknown): SandportError {
  return new SandportError({
    code: "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    cause,
    message: `vercel lost the answer to the start of session ${sessionId} in sandbox ${name}: its command may have run`,
    details: { sandboxId: name, sessionId, outcomeUnknown: true },
  });
}
