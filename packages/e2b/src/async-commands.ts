import { randomUUID } from "node:crypto";
import { COMMAND_ENV, type CommandRef, SandportError, SESSION_ENV } from "@sandport/core";
import {
  type AsyncCommandEnd,
  asyncCommands,
  asyncScript,
  missingCwd,
  type OperationCall,
  OutputCollector,
  parseExitRecord,
  parseStartLine,
  parseStartRecord,
  sessionFiles,
  unknownCommand,
  VANISHED_END,
  whenAbsent,
} from "@sandport/core/adapter";
import { type CommandPlan, discardStdin, planCommand, stageStdin } from "./command-plan.js";
import type { E2BContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { E2BCommandHandle, E2BSandbox } from "./internal/sdk-types.js";
import { isMissingCwd } from "./process-control.js";

/** How long envd lets the script outlive the command's own timeout (its watchdog kills first). */
const BACKSTOP_MS = 60_000;

/**
 * `startCommand` starts a command without waiting for it; the session id is
 * the idempotency key. One request: the started script (`asyncScript`)
 * claims the session inside the sandbox and reports either its own command
 * id or, when the session already exists (running, finished, or started by a
 * racing or retried call whose response was lost), the existing command's id,
 * without running a second copy. The process carries `SANDPORT_SESSION_ID`
 * and `SANDPORT_COMMAND_ID`, so `commandStatus` finds it in envd's process list.
 *
 * `commandStatus`: `running` while envd lists a process tagged with its
 * session and command id; then `exited` with the recorded exit code (`null`
 * when the watchdog killed it for its timeout), or 255 when it vanished
 * without an exit record. A session never started rejects `NOT_FOUND`.
 *
 * `commandLogs`: the command's output so far, complete once it has exited;
 * capped at the command's own `maxOutputBytes` (recorded at its start). Its
 * script stops it once it passes the cap, whether anyone polls or not:
 * `truncated`, `exitCode: null`.
 */
export const { startCommand, commandStatus, commandLogs } = asyncCommands<E2BContext, CommandPlan, E2BSandbox>({
  plan: (context, request) => planCommand(context.options, request),
  start: async (context, plan, sessionId, { sandboxId: id, instance: sandbox, call }) => {
    const files = sessionFiles(context.options.commandStateDirectory, sessionId);
    const commandId = randomUUID();
    const script = asyncScript({
      command: plan.command,
      cwd: plan.processCwd,
      timeoutMs: plan.timeoutMs,
      maxOutputBytes: plan.maxOutputBytes,
      files,
      commandId,
    });
    await stageStdin(sandbox, plan, call);
    let output = "";
    let lineSeen: () => void = () => {};
    const seen = new Promise<void>((resolve) => {
      lineSeen = resolve;
    });
    const process = await sandbox.commands
      .run(script, {
        background: true,
        cwd: plan.processCwd,
        envs: { ...plan.env, [SESSION_ENV]: sessionId, [COMMAND_ENV]: commandId },
        timeoutMs: plan.timeoutMs + BACKSTOP_MS,
        stdin: false,
        requestTimeoutMs: call.remainingMs(),
        signal: call.signal,
        onStdout: (data) => {
          output += data;
          if (output.includes("\n")) lineSeen();
        },
      })
      .catch(async (error: unknown) => {
        await discardStdin(sandbox, plan);
        if (isMissingCwd(error)) throw missingCwd(PROVIDER, plan.cwd, { sandboxId: id, cause: error });
        throw error;
      });
    const { line, how } = await firstLine(process, seen, () => output);
    await process.disconnect();
    const started = parseStartLine(line);
    // A start that claimed nothing ran nothing, so nothing consumed its staged stdin.
    if (!started?.claimed) await discardStdin(sandbox, plan);
    if (started) return started.commandId;
    throw new SandportError({
      code: "UNEXPECTED",
      provider: PROVIDER,
      retryable: false,
      message: `e2b could not start the async command (session ${sessionId}): ${how ? `its start script ended before saying so (${how})` : JSON.stringify(line)}`,
      details: { sandboxId: id, sessionId, ...(how ? { ended: how } : {}) },
    });
  },
  status: (context, ref, { instance, call }) => readExit(context, instance, ref, call),
  logs: async (context, ref, { instance: sandbox, call }) => {
    const files = sessionFiles(context.options.commandStateDirectory, ref.sessionId);
    const end = await readExit(context, sandbox, ref, call);
    const [stdout = "", stderr = "", record] = await Promise.all([
      readText(sandbox, files.stdout, call),
      readText(sandbox, files.stderr, call),
      readText(sandbox, files.record, call),
    ]);
    const started = parseStartRecord(record);
    const output = new OutputCollector(started?.maxOutputBytes ?? context.options.maxOutputBytes);
    output.push("stdout", stdout);
    output.push("stderr", stderr);
    const startedAt = started?.startedAt;
    return { output, end, runningForMs: startedAt === undefined ? 0 : Math.max(0, Date.now() - startedAt) };
  },
});

/**
 * Waits for the script's first line. A script that ended without one resolves
 * `how`: its exit code and stderr, for the error that follows. A stream that
 * broke before the line came rejects with the SDK's error: whether the command
 * started is then unknown, and a retry with the same session id finds it.
 */
async function firstLine(
  process: E2BCommandHandle,
  seen: Promise<void>,
  text: () => string,
): Promise<{ line: string; how?: string }> {
  const ended = process.wait().then(
    (result) => `exit ${result.exitCode}`,
    (error: unknown) => {
      const { exitCode, stderr } = error as { exitCode?: unknown; stderr?: unknown };
      if (typeof exitCode !== "number") throw error;
      return `exit ${exitCode}${typeof stderr === "string" && stderr !== "" ? `, stderr ${JSON.stringify(stderr.slice(0, 200))}` : ""}`;
    },
  );
  const how = await Promise.race([seen.then(() => undefined), ended]);
  const line = text().split("\n")[0]?.trim() ?? "";
  return line === "" && how !== undefined ? { line, how } : { line };
}

/** `running` while a tagged process exists; else the exit record, or 255 when there is none. */
async function readExit(
  context: E2BContext,
  sandbox: E2BSandbox,
  ref: CommandRef,
  call: OperationCall,
): Promise<AsyncCommandEnd | "running"> {
  const files = sessionFiles(context.options.commandStateDirectory, ref.sessionId);
  const processes = await sandbox.commands.list({ requestTimeoutMs: call.remainingMs(), signal: call.signal });
  const tagged = (envs: Record<string, string> | undefined) =>
    envs?.[SESSION_ENV] === ref.sessionId && envs?.[COMMAND_ENV] === ref.commandId;
  if (processes.some((info) => tagged(info.envs))) return "running";
  const [exitText, startText] = await Promise.all([
    readText(sandbox, files.exit, call),
    readText(sandbox, files.record, call),
  ]);
  const started = parseStartRecord(startText);
  if (started === undefined && !(await exists(sandbox, files.directory, call))) {
    const why = `no async command with session id ${ref.sessionId} was started in this sandbox`;
    throw unknownCommand(PROVIDER, ref, why);
  }
  if (started !== undefined && started.commandId !== ref.commandId) {
    throw unknownCommand(
      PROVIDER,
      ref,
      `session ${ref.sessionId} holds command ${started.commandId}, not ${ref.commandId}`,
    );
  }
  return parseExitRecord(exitText) ?? VANISHED_END;
}

async function exists(sandbox: E2BSandbox, path: string, call: OperationCall): Promise<boolean> {
  const info = sandbox.files.getInfo(path, { requestTimeoutMs: call.remainingMs(), signal: call.signal });
  return info.then(() => true, whenAbsent(isNotFound, false));
}

/** A file's text, or `undefined` when it does not exist. */
async function readText(sandbox: E2BSandbox, path: string, call: OperationCall): Promise<string | undefined> {
  const options = { requestTimeoutMs: call.remainingMs(), signal: call.signal, format: "bytes" as const };
  const read = sandbox.files.read(path, options);
  return read.then((bytes) => new TextDecoder().decode(bytes), whenAbsent(isNotFound, undefined));
}
