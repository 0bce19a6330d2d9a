import { randomUUID } from "node:crypto";
import { retry, SandportError } from "@sandport/core";
import {
  assertCommandFits,
  type CallBudget,
  createCallBudget,
  KILL_DEADLINE_MS,
  lostOutput,
  processExited,
  type VendorCommand,
  type VendorEnd,
  type VendorStdin,
} from "@sandport/core/adapter";
import { type CommandPlan, refusedOnly, stageStdin } from "./command-plan.js";
import { daemonCommand, type SessionScriptParts, sessionScript } from "./command-scripts.js";
import type { DaytonaContext } from "./context.js";
import { isNotFound, mapDaytonaError, statusOf } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { repeatable, sweep } from "./run-script.js";
import { cwdNotFound } from "./vendor-command.js";

/** How long the sandbox's own watchdog waits past a streamed command's timeout (the engine kills it first). */
const BACKSTOP_MS = 5_000;
/** How long the exit code may lag the end of the followed log. */
const EXIT_WAIT_DELAYS_MS = [0, 100, 200, 400, 800] as const;
/** Raw bytes per input line (base64 of 48 KiB is one 64 KiB line). */
const INPUT_CHUNK_BYTES = 48 * 1024;

/** A session command for the kit's engine, and the stdin of the one it started. */
export interface SessionRun {
  readonly command: VendorCommand;
  /** The started command's stdin (`spawn`): base64 lines to the relay, `.` to close it. */
  stdin(commandId: string | number): VendorStdin;
}

/**
 * One command in its own Daytona session (`execStream`, `spawn`): started
 * with `runAsync`, its merged output followed over the SDK's log WebSocket,
 * killed by deleting the session (its process group) and a sweep by marker.
 * The session is deleted once the command has ended. A followed log can end
 * early, with an error or without: the exit code is read, and the stored log
 * read once more so what was missed is kept; output that may be incomplete is
 * never a result (`PROVIDER_UNAVAILABLE`), and a log that ends while the
 * command still runs is a lost command (the engine kills it).
 */
export function sessionRun(
  context: DaytonaContext,
  sandbox: DaytonaSandbox,
  sandboxId: string,
  plan: CommandPlan,
  budget: CallBudget,
): SessionRun {
  const session = `sandport-run-${randomUUID()}`;
  const { process } = sandbox;
  // The command's end waits for its session's delete (for at most the kill deadline), so no request of a
  // command outlives its result: one sent in the background would land during the caller's next call.
  const deleteSession = async () => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, KILL_DEADLINE_MS);
    });
    await Promise.race([process.deleteSession(session).catch(() => undefined), deadline]);
    clearTimeout(timer);
  };
  let killing: Promise<void> | undefined;

  const follow = async (commandId: string, output: (data: string) => void): Promise<VendorEnd> => {
    let followed = "";
    let lost: unknown;
    const push = (chunk: string) => {
      followed += chunk;
      output(chunk);
    };
    try {
      await process.getSessionCommandLogs(session, commandId, push, push).catch((error: unknown) => {
        lost = error;
      });
      if (killing) return { kind: "killed" };
      const exitCode = await exitCodeOf(sandbox, session, commandId);
      if (exitCode === undefined) throw lostOutput(PROVIDER, lost, commandId);
      // What the stored log (the SDK's non-streaming read) holds beyond what was followed. A failed read, or
      // a log that does not begin with what was followed, is PROVIDER_UNAVAILABLE: output that may be
      // incomplete is never a result.
      const incomplete = (cause: unknown) =>
        new SandportError({
          code: "PROVIDER_UNAVAILABLE",
          provider: PROVIDER,
          retryable: false,
          ...(cause === undefined ? {} : { cause }),
          message: `daytona lost part of the output of a command in sandbox ${sandboxId}; it exited ${exitCode}, and its log could not be read again`,
          details: { sandboxId, exitCode, lostOutput: true },
        });
      const site = { operation: "read the log again", sandboxId };
      const logs = await repeatable(createCallBudget(KILL_DEADLINE_MS), site, () =>
        process.getSessionCommandLogs(session, commandId),
      ).catch((error: unknown) => {
        throw incomplete(lost ?? error);
      });
      const whole = logs.output ?? `${logs.stdout ?? ""}${logs.stderr ?? ""}`;
      if (!whole.startsWith(followed)) throw incomplete(lost);
      output(whole.slice(followed.length));
      return { kind: "exited", exitCode };
    } finally {
      if (!killing) await deleteSession();
    }
  };

  return {
    command: {
      start: async (output, signal) => {
        await retry(() => process.createSession(session), refusedOnly(signal));
        try {
          const timeoutMark = `${context.options.commandStateDirectory}/timeouts/${session}`;
          const parts = { watchdogMs: plan.timeoutMs + BACKSTOP_MS, timeoutMark };
          const commandId = await sendToSession(context, sandbox, session, plan, { ...budget, signal }, parts);
          if (!commandId) throw new Error("daytona started the command but reported no command id");
          return { pid: commandId, ended: follow(commandId, (data) => output("stdout", data)) };
        } catch (error) {
          await deleteSession();
          throw error;
        }
      },
      kill: () => {
        killing ??= deleteSession().then(() => sweep(sandbox, plan.marker, sandboxId));
        return killing;
      },
    },
    stdin: (commandId) => {
      const send = async (line: string) => {
        try {
          await retry(() => process.sendSessionCommandInput(session, String(commandId), line), refusedOnly());
        } catch (error) {
          if (statusOf(error) === 410 || isNotFound(error)) throw processExited(PROVIDER, error);
          throw mapDaytonaError(error, { operation: "spawn input", sandboxId });
        }
      };
      return {
        write: async (data) => {
          const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
          for (let offset = 0; offset < bytes.byteLength; offset += INPUT_CHUNK_BYTES) {
            await send(`${Buffer.from(bytes.subarray(offset, offset + INPUT_CHUNK_BYTES)).toString("base64")}\n`);
          }
        },
        close: () => send(".\n"),
      };
    },
  };
}

/**
 * Sends `plan` to run in `session` (which exists) without waiting for it:
 * its script (`sessionScript`: working directory, environment, watchdog,
 * the claim of an async command) encoded and checked, its large stdin
 * staged, one `runAsync` command (retried only when refused). Resolves the
 * command id Daytona reports, if any.
 */
export async function sendToSession(
  context: DaytonaContext,
  sandbox: DaytonaSandbox,
  session: string,
  plan: CommandPlan,
  budget: CallBudget,
  parts: Pick<SessionScriptParts, "watchdogMs" | "timeoutMark" | "claim" | "startRecord">,
): Promise<string | undefined> {
  const home = await context.homeOf(sandbox);
  if (plan.cwd !== home && plan.cwd !== context.options.workspaceRoot) await checkCwd(sandbox, plan, budget);
  const command = daemonCommand(
    sessionScript({
      home,
      cwd: plan.cwd,
      workspace: context.options.workspaceRoot,
      env: plan.env,
      marker: plan.marker,
      command: plan.command,
      interactive: plan.interactive,
      ...parts,
      ...(parts.claim !== undefined && plan.stdinUpload ? { staged: plan.stdinUpload.path } : {}),
    }),
  );
  assertCommandFits(command, PROVIDER);
  await stageStdin(sandbox, plan, budget);
  const started = await retry(
    () => sandbox.process.executeSessionCommand(session, { command, runAsync: true, suppressInputEcho: true }),
    refusedOnly(budget.signal),
  );
  return started.cmdId;
}

/**
 * A session has no working directory per command, and a script that cannot
 * `cd` has already begun to answer: so a `cwd` other than home and the
 * workspace root (which the runtime made) is proved first, with one `executeCommand` of `true` there, whose exit -1 (the
 * directory is missing) is `NOT_FOUND` before anything is sent to the
 * session. The script's own `cd` still fails the command if the directory
 * goes in between.
 */
export async function checkCwd(sandbox: DaytonaSandbox, plan: CommandPlan, budget: CallBudget): Promise<void> {
  const seconds = Math.max(1, Math.ceil(Math.min(budget.remainingMs(), CWD_CHECK_MS) / 1000));
  const answer = await retry(
    () => sandbox.process.executeCommand("true", plan.cwd, {}, seconds),
    refusedOnly(budget.signal),
  );
  if (answer.exitCode === -1) throw cwdNotFound(sandbox.id, plan.cwd, answer.result);
}

/** The longest the check of a working directory may take. */
const CWD_CHECK_MS = 30_000;

/** The exit code Daytona recorded, waiting a little for it to follow the end of the log. */
async function exitCodeOf(sandbox: DaytonaSandbox, session: string, commandId: string): Promise<number | undefined> {
  const budget = createCallBudget(5_000);
  for (const delay of EXIT_WAIT_DELAYS_MS) {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    try {
      const command = await sandbox.process.getSessionCommand(session, commandId);
      if (typeof command.exitCode === "number") return command.exitCode;
    } catch (error) {
      if (isNotFound(error) || budget.remainingMs() === 0) return undefined;
    }
  }
  return undefined;
}
