import { randomUUID } from "node:crypto";
import {
  type CommandRef,
  type CommandStatus,
  type ExecResult,
  invalidRequest,
  type OpOptions,
  SandportError,
  type StartCommandRequest,
  withDeadline,
} from "@sandport/core";
import { asyncScript, EXISTS_LINE, type SessionFiles, STARTED_LINE, sessionFiles } from "./async-script.js";
import { isNotFound, mapE2BError } from "./errors.js";
import { discardStdin, planCommand, uploadStdin } from "./exec.js";
import type { CallTiming, RuntimeContext } from "./internal/context.js";
import type { E2BCommandHandle, E2BSandbox } from "./internal/sdk-types.js";
import { sandboxIdOf } from "./lifecycle.js";
import { COMMAND_ENV, SESSION_ENV } from "./markers.js";
import { PROVIDER } from "./options.js";
import { utf8Prefix } from "./output.js";
import type { E2BHandle } from "./ownership.js";

/** Exit code reported for a command that vanished without an exit record. */
export const VANISHED_EXIT = 255;
/** How long envd lets the script outlive the command's own timeout (its watchdog kills first). */
const BACKSTOP_MS = 60_000;
const SESSION_ID = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/;

interface ExitRecord {
  readonly exitCode: number;
  readonly durationMs: number;
  readonly timedOut: boolean;
}

/**
 * Starts a command without waiting for it; the session id is the idempotency
 * key. One request: the started script claims the session inside the sandbox
 * and reports either its own command id or, when the session already exists
 * (running, finished, or started by a racing or retried call whose response
 * was lost), the existing command's id, without running a second copy. The
 * process carries `SANDPORT_SESSION_ID` and `SANDPORT_COMMAND_ID`, so
 * `commandStatus` finds it in envd's process list. See `asyncScript`.
 */
export async function startAsyncCommand(
  context: RuntimeContext,
  handle: E2BHandle,
  request: StartCommandRequest,
  op?: OpOptions,
): Promise<CommandRef> {
  const sandboxId = sandboxIdOf(handle, "startCommand");
  const sessionId = validSessionId(request?.sessionId);
  const { sessionId: _key, ...execRequest } = request;
  const plan = planCommand(context.options, execRequest as StartCommandRequest);
  const files = sessionFiles(context.options.commandStateDirectory, sessionId);
  const commandId = randomUUID();
  return sessionCall(context, "startCommand", sandboxId, op, async (sandbox, timing) => {
    context.markCommandRun(sandboxId);
    await uploadStdin(sandbox, plan, timing);
    let firstLine = "";
    let lineSeen: () => void = () => {};
    const seen = new Promise<void>((resolve) => {
      lineSeen = resolve;
    });
    const starting = sandbox.commands.run(asyncScript(plan, files, commandId), {
      background: true,
      cwd: plan.cwd,
      envs: { ...plan.env, [SESSION_ENV]: sessionId, [COMMAND_ENV]: commandId },
      timeoutMs: plan.timeoutMs + BACKSTOP_MS,
      stdin: false,
      ...timing,
      onStdout: (data) => {
        firstLine += data;
        if (firstLine.includes("\n")) lineSeen();
      },
    });
    const process = await starting.catch(async (error: unknown) => {
      await discardStdin(sandbox, plan);
      throw error;
    });
    const line = await firstLineOf(process, seen, () => firstLine);
    await process.disconnect();
    if (line.startsWith(`${STARTED_LINE} `)) return { sessionId, commandId: line.slice(STARTED_LINE.length + 1) };
    // This start ran nothing, so nothing consumed its staged stdin.
    await discardStdin(sandbox, plan);
    if (line.startsWith(`${EXISTS_LINE} `) && line.length > EXISTS_LINE.length + 1) {
      return { sessionId, commandId: line.slice(EXISTS_LINE.length + 1) };
    }
    throw new SandportError({
      code: "UNEXPECTED",
      provider: PROVIDER,
      retryable: false,
      message: `e2b could not start the async command (session ${sessionId}): ${JSON.stringify(line)}`,
      details: { sandboxId, sessionId },
    });
  });
}

/**
 * Where a started command is: `running` while envd lists a process tagged
 * with its session and command id; then `exited` with the recorded exit code
 * (`null` when the watchdog killed it for its timeout), or 255 when it
 * vanished without an exit record. A session never started rejects `NOT_FOUND`.
 */
export async function asyncCommandStatus(
  context: RuntimeContext,
  handle: E2BHandle,
  ref: CommandRef,
  op?: OpOptions,
): Promise<CommandStatus> {
  const sandboxId = sandboxIdOf(handle, "commandStatus");
  const files = sessionFiles(context.options.commandStateDirectory, validRef(ref).sessionId);
  return sessionCall(context, "commandStatus", sandboxId, op, async (sandbox, timing) => {
    const exit = await readExit(sandbox, ref, files, timing);
    if (exit === "running") return { state: "running", exitCode: null };
    return { state: "exited", exitCode: exit.timedOut ? null : exit.exitCode };
  });
}

/** The command's output so far, complete once it has exited; capped at the runtime's `maxOutputBytes`. */
export async function asyncCommandLogs(
  context: RuntimeContext,
  handle: E2BHandle,
  ref: CommandRef,
  op?: OpOptions,
): Promise<ExecResult> {
  const sandboxId = sandboxIdOf(handle, "commandLogs");
  const files = sessionFiles(context.options.commandStateDirectory, validRef(ref).sessionId);
  return sessionCall(context, "commandLogs", sandboxId, op, async (sandbox, timing) => {
    const exit = await readExit(sandbox, ref, files, timing);
    const [stdout = "", stderr = "", record] = await Promise.all([
      readText(sandbox, files.stdout, timing),
      readText(sandbox, files.stderr, timing),
      exit === "running" ? readText(sandbox, files.record, timing) : Promise.resolve(undefined),
    ]);
    const cap = context.options.maxOutputBytes;
    const keptOut = utf8Prefix(stdout, cap);
    const keptErr = utf8Prefix(stderr, cap - Buffer.byteLength(keptOut));
    const startedAt = Number(record?.split("\n")[1]);
    const runningFor = Number.isFinite(startedAt) ? Math.max(0, Date.now() - startedAt) : 0;
    return {
      exitCode: exit === "running" || exit.timedOut ? null : exit.exitCode,
      stdout: keptOut,
      stderr: keptErr,
      truncated: keptOut !== stdout || keptErr !== stderr,
      timedOut: exit !== "running" && exit.timedOut,
      durationMs: exit === "running" ? runningFor : exit.durationMs,
    };
  });
}

/** Waits for the script's first line; fails when it ends without one. */
async function firstLineOf(process: E2BCommandHandle, seen: Promise<void>, text: () => string): Promise<string> {
  const ended = process.wait().then(
    () => "ended",
    () => "ended",
  );
  await Promise.race([seen, ended]);
  return text().split("\n")[0]?.trim() ?? "";
}

/** `running` while a tagged process exists; else the exit record, or 255 when there is none. */
async function readExit(
  sandbox: E2BSandbox,
  ref: CommandRef,
  files: SessionFiles,
  timing: CallTiming,
): Promise<ExitRecord | "running"> {
  const processes = await sandbox.commands.list(timing);
  const tagged = (envs: Record<string, string> | undefined) =>
    envs?.[SESSION_ENV] === ref.sessionId && envs?.[COMMAND_ENV] === ref.commandId;
  if (processes.some((info) => tagged(info.envs))) return "running";
  const record = await readText(sandbox, files.exit, timing);
  if (record !== undefined) {
    const [code, duration, timed] = record.split("\n");
    const exitCode = Number(code);
    if (code !== "" && Number.isInteger(exitCode)) {
      return { exitCode, durationMs: Number(duration) || 0, timedOut: timed === "1" };
    }
  }
  const started = await readText(sandbox, files.record, timing);
  if (started === undefined && !(await exists(sandbox, files.directory, timing))) {
    throw new SandportError({
      code: "NOT_FOUND",
      provider: PROVIDER,
      retryable: false,
      message: `no async command with session id ${ref.sessionId} was started in this sandbox`,
      details: { sessionId: ref.sessionId },
    });
  }
  if (started !== undefined && started.split("\n")[0] !== ref.commandId) {
    throw new SandportError({
      code: "NOT_FOUND",
      provider: PROVIDER,
      retryable: false,
      message: `session ${ref.sessionId} holds command ${started.split("\n")[0]}, not ${ref.commandId}`,
      details: { sessionId: ref.sessionId, commandId: ref.commandId },
    });
  }
  return { exitCode: VANISHED_EXIT, durationMs: 0, timedOut: false };
}

async function exists(sandbox: E2BSandbox, path: string, timing: CallTiming): Promise<boolean> {
  try {
    await sandbox.files.getInfo(path, timing);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** A file's text, or `undefined` when it does not exist. */
async function readText(sandbox: E2BSandbox, path: string, timing: CallTiming): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await sandbox.files.read(path, { ...timing, format: "bytes" }));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function sessionCall<T>(
  context: RuntimeContext,
  operation: string,
  sandboxId: string,
  op: OpOptions | undefined,
  work: (sandbox: E2BSandbox, timing: CallTiming) => Promise<T>,
): Promise<T> {
  const requestTimeoutMs = op?.timeoutMs ?? context.options.timeouts.lookupMs;
  return withDeadline(
    op,
    { provider: PROVIDER, operation, defaultTimeoutMs: context.options.timeouts.lookupMs },
    async (signal) => {
      const timing = { requestTimeoutMs, signal };
      const sandbox = await context.sandbox(sandboxId, operation, timing);
      try {
        return await work(sandbox, timing);
      } catch (error) {
        throw mapE2BError(error, { operation, sandboxId });
      }
    },
  );
}

function validSessionId(sessionId: unknown): string {
  if (typeof sessionId !== "string" || !SESSION_ID.test(sessionId)) {
    throw invalidRequest("sessionId must be 1-128 characters of [A-Za-z0-9._-], not . or ..", {}, PROVIDER);
  }
  return sessionId;
}

function validRef(ref: CommandRef): CommandRef {
  if (typeof ref !== "object" || ref === null || typeof ref.commandId !== "string" || ref.commandId === "") {
    throw invalidRequest("command ref must be { sessionId, commandId }", {}, PROVIDER);
  }
  validSessionId(ref.sessionId);
  return ref;
}
