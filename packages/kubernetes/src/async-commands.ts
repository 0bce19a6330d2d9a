import { randomUUID } from "node:crypto";
import {
  COMMAND_ENV,
  type CommandRef,
  composeShellCommand,
  type ExecRequest,
  enterCwdScript,
  isMissingCwdExit,
  quoteShellArg,
  SandportError,
  SESSION_ENV,
} from "@sandport/core";
import {
  type AsyncCommandEnd,
  type AsyncCommandSite,
  asyncCommands,
  asyncScript,
  missingCwd,
  OutputCollector,
  parseExitRecord,
  parseStartLine,
  parseStartRecord,
  planStdin,
  sessionFiles,
  unknownCommand,
  VANISHED_END,
  validCommand,
} from "@sandport/core/adapter";
import type { KubernetesContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { ResolvedOptions } from "./options.js";
import { runScript } from "./run-script.js";

/** Largest output a record read may return: both streams at the largest cap, in base64, and the records. */
const RECORD_READ_BYTES = Math.ceil(((2 * (256 * 1024 * 1024 + 1)) / 3) * 4) + 64 * 1024;

/** An async command planned: the supervisor script (`asyncScript`) and where it runs. */
export interface AsyncPlan {
  /** Absolute working directory: the starter changes to it, so the script's relative record paths hold. */
  readonly cwd: string;
  /** Run budget in ms (the supervisor's watchdog). */
  readonly timeoutMs: number;
  /** Output cap in bytes. */
  readonly maxOutputBytes: number;
  /** The command as one shell string: env, then the request, its stdin embedded. */
  readonly command: string;
}

/**
 * `startCommand` starts a command that outlives the call, by the kit's
 * file-backed recipe, on either data plane: sandboxd forgets a process once
 * its `Start` stream ends and pod exec has no process table, so the command
 * runs under a supervisor (`asyncScript`, bash) that keeps its records in
 * the pod under `commandStateDirectory/<session id>`: the start record, its
 * stdout and stderr (each cut one byte past the output cap, which stops the
 * command), and the exit record (with the watchdog's timeout mark). One
 * short command starts it: it changes to the working directory (a missing
 * one is `NOT_FOUND`, nothing run), takes the supervisor script on its own
 * stdin (no length limit of argv or of an exec URL), starts it detached (a
 * session of its own with `setsid`, else a job of its own, so a stream's end
 * or a kill of the starter's group leaves it running) and prints the
 * supervisor's first line. The session's directory is claimed with `mkdir`,
 * so a repeated, racing or later start with the same session id, from any
 * runtime instance, returns the command that claimed it and runs nothing.
 *
 * `commandStatus` and `commandLogs` run one short read in the pod: whether
 * a process carrying the command's id (`SANDPORT_COMMAND_ID`, which the
 * supervisor and the command inherit) still runs, then the records, then
 * (logs) the output. `running` while such a process runs and no exit is
 * recorded; the exit record once written (`exitCode: null` when the
 * watchdog or the cap stopped it); `VANISHED_END` (255) when nothing runs
 * and nothing was recorded (the pod was restarted or suspended). A session
 * never started, or holding another command, is `NOT_FOUND`.
 */
export const { startCommand, commandStatus, commandLogs } = asyncCommands<KubernetesContext, AsyncPlan, string>({
  plan: (context, request) => planAsync(context.options, request),
  start: async (context, plan, sessionId, { sandboxId, instance: pod, call }) => {
    const { options } = context;
    const files = sessionFiles(options.commandStateDirectory, sessionId);
    const commandId = randomUUID();
    const supervisor = asyncScript({ ...plan, files, commandId });
    const result = await runScript(
      context,
      sandboxId,
      pod,
      starterScript(plan.cwd, options.workspaceRoot, sessionId, commandId),
      call,
      new TextEncoder().encode(supervisor),
    );
    if (isMissingCwdExit(result.exitCode, result.stderr)) throw missingCwd(PROVIDER, plan.cwd, { sandboxId });
    const started = parseStartLine(result.stdout.split("\n")[0]?.trim() ?? "");
    if (started) return started.commandId;
    throw new SandportError({
      code: "UNEXPECTED",
      provider: PROVIDER,
      retryable: false,
      message: `kubernetes could not start the async command (session ${sessionId}) in claim ${sandboxId}: exit ${result.exitCode}, ${JSON.stringify((result.stderr || result.stdout).slice(0, 300))}`,
      details: { sandboxId, sessionId, exitCode: result.exitCode },
    });
  },
  status: async (context, ref, site) => (await readRecords(context, ref, site, false)).end,
  logs: async (context, ref, site) => {
    const { end, started, stdout, stderr } = await readRecords(context, ref, site, true);
    const output = new OutputCollector(started.maxOutputBytes ?? context.options.maxOutputBytes);
    output.push("stdout", stdout);
    output.push("stderr", stderr);
    const startedAt = started.startedAt;
    return { output, end, runningForMs: startedAt === undefined ? 0 : Math.max(0, Date.now() - startedAt) };
  },
});

/** Validates the request (`INVALID_REQUEST` before any call) into the command the supervisor runs. */
function planAsync(options: ResolvedOptions, request: ExecRequest): AsyncPlan {
  const { valid, timeoutMs, maxOutputBytes, env, cwd } = validCommand(options, request, PROVIDER);
  const composed = composeShellCommand({ request: valid, env });
  // The supervisor script travels on the starter's stdin, so stdin of any size is embedded in it.
  const staging = { cwd, scratchDirectory: "/tmp", name: "unused", embedLimitBytes: Number.POSITIVE_INFINITY };
  const { command } = planStdin(composed, valid.stdin, staging);
  return { cwd, timeoutMs, maxOutputBytes, command };
}

/**
 * The starter: in `cwd` (else the kit's missing-cwd exit; the workspace root,
 * which a launch does not make, made first when missing), the supervisor
 * script from stdin into a temporary file, started detached with the
 * session and command ids in its environment, its first line read through
 * a FIFO and printed. The supervisor stops writing to the FIFO after that
 * line, so the starter ends while the command runs on.
 */
function starterScript(cwd: string, workspace: string, sessionId: string, commandId: string): string {
  const ids = `${SESSION_ENV}=${quoteShellArg(sessionId)} ${COMMAND_ENV}=${quoteShellArg(commandId)}`;
  return [
    enterCwdScript(cwd, workspace),
    "command -v bash >/dev/null 2>&1 || { echo 'sandport: async commands need bash in the pod' >&2; exit 127; }",
    's=$(mktemp) && cat > "$s" && f="$s.fifo" && mkfifo -m 600 "$f" || exit 1',
    "if command -v setsid >/dev/null 2>&1; then",
    `  ${ids} setsid bash "$s" >"$f" 2>/dev/null </dev/null &`,
    "else",
    `  ${ids} bash -c 'set -m; bash "$0" & ' "$s" >"$f" 2>/dev/null </dev/null &`,
    "fi",
    'head -n 1 <"$f"',
    'rm -f -- "$f" "$s"',
  ].join("\n");
}

/** What a read of a session found. */
interface SessionRecords {
  readonly end: AsyncCommandEnd | "running";
  readonly started: { readonly startedAt: number | undefined; readonly maxOutputBytes: number | undefined };
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * One command in the pod reads the session: whether a process of the
 * command runs (first: a command that ends between the two reads then
 * shows its exit record), its start and exit records, and `withOutput` its
 * stdout and stderr (after the exit record, so an exited command's output
 * is whole), each base64 on a line of its own.
 */
async function readRecords(
  context: KubernetesContext,
  ref: CommandRef,
  { sandboxId, instance: pod, call }: AsyncCommandSite<string>,
  withOutput: boolean,
): Promise<SessionRecords> {
  const files = sessionFiles(context.options.commandStateDirectory, ref.sessionId);
  const part = (name: string, path: string) =>
    `printf '${name} '; [ -f ${quoteShellArg(path)} ] && base64 < ${quoteShellArg(path)} | tr -d '\\n'; echo`;
  const script = [
    `[ -d ${quoteShellArg(files.directory)} ] || { echo absent; exit 0; }`,
    `if grep -lqzx -- ${quoteShellArg(`${COMMAND_ENV}=${ref.commandId}`)} /proc/[0-9]*/environ 2>/dev/null; then echo running; else echo ended; fi`,
    part("record", files.record),
    part("exit", files.exit),
    ...(withOutput ? [part("stdout", files.stdout), part("stderr", files.stderr)] : []),
  ].join("\n");
  const result = await runScript(context, sandboxId, pod, script, call, undefined, RECORD_READ_BYTES);
  if (result.exitCode !== 0) {
    throw new SandportError({
      code: "UNEXPECTED",
      provider: PROVIDER,
      retryable: false,
      message: `kubernetes could not read async command ${ref.commandId} in claim ${sandboxId}: exit ${result.exitCode}, ${JSON.stringify(result.stderr.slice(0, 300))}`,
      details: { sandboxId, ...ref },
    });
  }
  const lines = result.stdout.split("\n");
  if (lines[0] === "absent") {
    throw unknownCommand(PROVIDER, ref, `no async command with session id ${ref.sessionId} was started in this pod`);
  }
  const fields = new Map<string, Buffer>();
  for (const line of lines.slice(1)) {
    const space = line.indexOf(" ");
    if (space > 0) fields.set(line.slice(0, space), Buffer.from(line.slice(space + 1), "base64"));
  }
  const text = (name: string) => fields.get(name)?.toString("utf8");
  const record = text("record");
  const started = parseStartRecord(record === "" ? undefined : record);
  // A session whose start record is not written yet belongs to a start still under way: its command.
  if (started !== undefined && started.commandId !== ref.commandId) {
    throw unknownCommand(
      PROVIDER,
      ref,
      `session ${ref.sessionId} holds command ${started.commandId}, not ${ref.commandId}`,
    );
  }
  const exit = parseExitRecord(text("exit"));
  const end = exit ?? (lines[0] === "running" ? "running" : VANISHED_END);
  return {
    end,
    started: { startedAt: started?.startedAt, maxOutputBytes: started?.maxOutputBytes },
    stdout: text("stdout") ?? "",
    stderr: text("stderr") ?? "",
  };
}
