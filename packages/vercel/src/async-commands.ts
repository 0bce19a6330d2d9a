import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import {
  type CommandRef,
  type CommandStatus,
  type ExecResult,
  type OpOptions,
  quoteShellArg,
  SandportError,
  type StartCommandRequest,
  validateCommandRef,
  validateSessionId,
} from "@sandport/core";
import { type OperationCall, OutputCollector } from "@sandport/core/adapter";
import { budget, type CallTiming, type VercelContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { planCommand } from "./exec.js";
import { PROVIDER } from "./handle.js";
import type { VercelCommand, VercelSandbox } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { discardStdin, refusedBeforeStart, runHelper, stageStdin } from "./run-command.js";

/** How long `commandLogs` of a running command waits for more output once the replayed lines stop. */
const LOGS_QUIET_MS = 200;
/** The longest `commandLogs` of a running command reads its live output. */
const LOGS_WINDOW_MS = 2_000;

/**
 * Starts a command as a Vercel detached command; the session id is the
 * idempotency key. Vercel commands have no caller-chosen key, so a session is
 * claimed inside the sandbox first (one command: `mkdir` is atomic): the
 * start that claims it starts the command and records its id there; any
 * other start (a retry, a racing call, a call after the command ended, from
 * any instance) waits for that record and returns the same command, which
 * never runs twice. A new session costs three requests (claim, start,
 * record), a known one one.
 *
 * A claim whose answer was lost is asked again (the claim carries this
 * call's nonce, so it recognises itself). A start whose answer was lost may
 * have run: the session is then recorded as lost, and every later start with
 * its id is refused (`UNEXPECTED`) rather than run a second copy.
 */
export function startCommand(
  context: VercelContext,
  handle: unknown,
  request: StartCommandRequest,
  op?: OpOptions,
): Promise<CommandRef> {
  let sessionId: string;
  let plan: ReturnType<typeof planCommand>;
  try {
    sessionId = validateSessionId(request?.sessionId, PROVIDER);
    const { sessionId: _key, ...execRequest } = request;
    plan = planCommand(context.options, execRequest);
  } catch (error) {
    return Promise.reject(error);
  }
  const { options } = context;
  const record = recordPath(options, sessionId);
  return context.onSandbox(handle, op, "startCommand", options.timeouts.lookupMs, async (sandbox, call, name) => {
    context.markCommandRun(name);
    const claim = await claimSession(sandbox, options, sessionId, call);
    if (claim.startsWith("exists ")) {
      const commandId = claim.slice("exists ".length);
      if (commandId === LOST) throw lostSession(name, sessionId);
      return { sessionId, commandId };
    }
    if (claim !== "claimed") throw unclaimed(name, sessionId, claim);
    // Nothing ran yet: a failure frees the session for the next start (and its staged stdin).
    const release = async () => {
      await runHelper(sandbox, ["rm", "-rf", "--", posix.dirname(record)], options.workspaceRoot, call).catch(
        () => undefined,
      );
      await discardStdin(sandbox, plan);
    };
    await stageStdin(sandbox, plan, call).catch(async (error: unknown) => {
      await release();
      throw error;
    });
    let command: VercelCommand;
    try {
      command = await sandbox.runCommand({
        cmd: plan.cmd,
        args: plan.args,
        cwd: plan.cwd,
        env: plan.env,
        timeoutMs: plan.timeoutMs,
        detached: true,
        signal: call.signal,
      });
    } catch (error) {
      if (refusedBeforeStart(error)) {
        await release();
        throw error;
      }
      // It may have run: later starts of this session are refused at once rather than run it again.
      await writeRecord(sandbox, record, `${LOST}\n`, budget(options.timeouts.fileMs)).catch(() => undefined);
      throw call.signal.aborted ? error : startLost(name, sessionId, error);
    }
    await writeRecord(sandbox, record, `${command.cmdId}\n${plan.timeoutMs}\n`, call);
    return { sessionId, commandId: command.cmdId };
  });
}

/** Claims a session (see {@link claimScript}); a claim whose answer was lost is asked once more. */
async function claimSession(
  sandbox: VercelSandbox,
  options: ResolvedOptions,
  sessionId: string,
  call: OperationCall,
): Promise<string> {
  const script = ["sh", "-c", claimScript(options, sessionId, randomUUID())];
  const claim = () => runHelper(sandbox, script, options.workspaceRoot, call);
  const result = await claim().catch((error: unknown) => {
    const lost = SandportError.isInstance(error) && error.details.outcomeUnknown === true;
    if (call.signal.aborted || !lost) throw error;
    return claim();
  });
  if (result.exitCode !== 0) return `failed: ${result.stderr.trim() || `exit ${result.exitCode}`}`;
  return result.stdout.trim();
}

function writeRecord(sandbox: VercelSandbox, path: string, text: string, timing: CallTiming): Promise<void> {
  return sandbox.writeFiles([{ path, content: new TextEncoder().encode(text) }], { signal: timing.signal });
}

/**
 * Where a started command is, from Vercel's own record of it (`getCommand`):
 * `running` while it has no exit code; then `exited` with it, or `null` when
 * it was killed at its timeout. An unknown command (or one of an earlier
 * session of a stopped sandbox) rejects `NOT_FOUND`.
 */
export function commandStatus(
  context: VercelContext,
  handle: unknown,
  ref: CommandRef,
  op?: OpOptions,
): Promise<CommandStatus> {
  return onCommand(context, handle, ref, op, "commandStatus", async (sandbox, command, call) => {
    if (command.exitCode === null) return { state: "running", exitCode: null };
    const timedOut = await ranOut(context.options, sandbox, ref, command, call);
    return { state: "exited", exitCode: timedOut ? null : command.exitCode };
  });
}

/**
 * The command's output: all of it once it has exited (Vercel replays its log
 * from the first line); while it runs, what the log stream delivers until it
 * has been quiet for 200 ms (2 s at most). Capped at the runtime's `maxOutputBytes`.
 */
export function commandLogs(
  context: VercelContext,
  handle: unknown,
  ref: CommandRef,
  op?: OpOptions,
): Promise<ExecResult> {
  return onCommand(context, handle, ref, op, "commandLogs", async (sandbox, command, call) => {
    const running = command.exitCode === null;
    const output = new OutputCollector(context.options.maxOutputBytes);
    await readLogs(command, output, running, call);
    const timedOut = !running && (await ranOut(context.options, sandbox, ref, command, call));
    return {
      exitCode: running || timedOut ? null : command.exitCode,
      stdout: output.stdout,
      stderr: output.stderr,
      truncated: output.truncated,
      timedOut,
      durationMs: running ? Math.max(0, Date.now() - command.startedAt) : (command.durationMs ?? 0),
    };
  });
}

/** Runs a status or logs call: the ref checked first, then `work` with the command as Vercel reports it. */
function onCommand<T>(
  context: VercelContext,
  handle: unknown,
  ref: CommandRef,
  op: OpOptions | undefined,
  operation: string,
  work: (sandbox: VercelSandbox, command: VercelCommand, call: OperationCall) => Promise<T>,
): Promise<T> {
  let valid: CommandRef;
  try {
    valid = validateCommandRef(ref, PROVIDER);
  } catch (error) {
    return Promise.reject(error);
  }
  return context.onSandbox(handle, op, operation, context.options.timeouts.lookupMs, async (sandbox, call) => {
    let command: VercelCommand;
    try {
      command = await sandbox.getCommand(valid.commandId, { signal: call.signal });
    } catch (error) {
      if (isNotFound(error)) throw unknownCommand(valid);
      throw error;
    }
    return work(sandbox, command, call);
  });
}

/**
 * True when an ended command was killed at its timeout: a signal's exit code
 * (128 + n) after at least the timeout recorded at its start. Read only for
 * such exit codes, so a normal exit costs no extra request.
 */
async function ranOut(
  options: ResolvedOptions,
  sandbox: VercelSandbox,
  ref: CommandRef,
  command: VercelCommand,
  call: OperationCall,
): Promise<boolean> {
  if (command.exitCode === null || command.exitCode < 128) return false;
  const bytes = await sandbox.readFileToBuffer({ path: recordPath(options, ref.sessionId) }, { signal: call.signal });
  const [commandId, timeout] = new TextDecoder().decode(bytes ?? new Uint8Array()).split("\n");
  const timeoutMs = Number(timeout);
  if (commandId !== command.cmdId || !Number.isFinite(timeoutMs)) return false;
  const durationMs = command.durationMs ?? Date.now() - command.startedAt;
  return durationMs >= timeoutMs - 50;
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
      const line = live ? await Promise.race([next, delay(Math.max(0, quiet))]) : await next;
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

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
}

/** `<sessionDirectory>/<sessionId>/command`: the started command's id and timeout. */
function recordPath(options: ResolvedOptions, sessionId: string): string {
  return `${options.sessionDirectory}/${sessionId}/command`;
}

/** What the record of a session holds when its start's outcome was lost. */
const LOST = "lost";

/**
 * Claims the session (`mkdir` of its directory, relative to the workspace,
 * then this call's `nonce` in it) and prints `claimed`; when the directory
 * exists, waits (up to 10 s) for the claimer's record and prints `exists
 * <command id>`, else `pending`. A claim holding the same nonce is this
 * call's own, repeated: `claimed` again.
 */
function claimScript(options: ResolvedOptions, sessionId: string, nonce: string): string {
  const directory = quoteShellArg(posix.relative(options.workspaceRoot, `${options.sessionDirectory}/${sessionId}`));
  return [
    `d=${directory}`,
    `mkdir -p -- "$(dirname -- "$d")" || exit 1`,
    `if mkdir -- "$d" 2>/dev/null; then echo ${nonce} > "$d/claim"; echo claimed; exit 0; fi`,
    `i=0; while [ ! -s "$d/command" ] && [ $i -lt 200 ]; do`,
    `  [ "$(cat "$d/claim" 2>/dev/null)" = ${nonce} ] && { echo claimed; exit 0; }`,
    "  sleep 0.05; i=$((i+1))",
    "done",
    `if [ -s "$d/command" ]; then echo "exists $(head -n 1 "$d/command")"; else echo pending; fi`,
  ].join("\n");
}

function unclaimed(name: string, sessionId: string, claim: string): SandportError {
  const pending = claim === "pending";
  return new SandportError({
    code: pending ? "PROVIDER_UNAVAILABLE" : "UNEXPECTED",
    provider: PROVIDER,
    retryable: pending,
    message: pending
      ? `session ${sessionId} in sandbox ${name} is claimed, but its command was not recorded within 10 s`
      : `vercel could not claim session ${sessionId} in sandbox ${name}: ${claim}`,
    details: { sandboxId: name, sessionId },
  });
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

function lostSession(name: string, sessionId: string): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `the start of session ${sessionId} in sandbox ${name} lost its answer, so its command may have run; it is never started again: use another session id`,
    details: { sandboxId: name, sessionId, outcomeUnknown: true },
  });
}

function unknownCommand(ref: CommandRef): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: PROVIDER,
    retryable: false,
    message: `no command ${ref.commandId} in the current session of the sandbox (session id ${ref.sessionId})`,
    details: { ...ref },
  });
}
