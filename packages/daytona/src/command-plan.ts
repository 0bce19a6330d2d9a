import { randomUUID } from "node:crypto";
import { type ExecRequest, enterCwdScript, type RetryOptions } from "@sandport/core";
import {
  assertCommandFits,
  type CallBudget,
  type PlannedCommand,
  planStdin,
  type StdinPlan,
  validCommand,
  workspaceEntry,
} from "@sandport/core/adapter";
import { cappedScript, daemonCommand, requestCommand } from "./command-scripts.js";
import { seconds } from "./context.js";
import { daytonaRetryAfterMs, wasRefused } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { DAYTONA_HOME, type ResolvedOptions } from "./options.js";

/** Largest stdin embedded in a command (base64); more is uploaded first. Leaves room for the command's own encoding. */
export const EMBEDDED_STDIN_BYTES = 32 * 1024;
/** Retries of a command start Daytona refused (429, 503): nothing ran. */
const START_RETRY = { maxAttempts: 3, initialDelayMs: 250, maxDelayMs: 2_000 } as const;

/**
 * How a request that is not safe to repeat (a create, a command start, an
 * input) is retried: only when Daytona refused it (429, 503: nothing was
 * done). The signal stops further attempts, never a request already sent.
 */
export function refusedOnly(signal?: AbortSignal): RetryOptions {
  return {
    policy: START_RETRY,
    isRetryable: wasRefused,
    // The SDK's raw error: its Retry-After is read from its headers, not from a SandportError.
    retryAfterMsOf: daytonaRetryAfterMs,
    ...(signal ? { signal } : {}),
  };
}

/**
 * A validated request, ready to send: with `executeCommand` (`exec`) or in a
 * session of its own. Its run budget goes to Daytona in whole seconds, rounded up.
 */
export interface CommandPlan extends PlannedCommand {
  /**
   * `exec`: the daemon's command string (output capped, encoded); a session:
   * the command (an `exec` for a subshell), stdin arranged.
   */
  readonly command: string;
  /**
   * Where `executeCommand` starts it (`exec`): `cwd`, but for the workspace
   * root, which a launch does not make: it then starts in home, and `command`
   * makes the workspace (when missing) and enters it first ({@link startInWorkspace}).
   */
  readonly processCwd: string;
  /** Stdin too large to embed, staged before the start (the command opens and deletes it). */
  readonly stdinUpload?: StdinPlan["upload"];
  /** A session command that reads its stdin from the session's input (`spawn`). */
  readonly interactive: boolean;
  /** `spawn`: the request's stdin, written first. */
  readonly firstWrite?: string | Uint8Array;
}

/**
 * Validates a request (the port's rules, the reserved env) and plans it:
 * `"exec"` for `executeCommand` (the request as a shell command, stdin
 * arranged, output capped by `cappedScript`, encoded by `daemonCommand`);
 * `"session"` for a streamed session command; `"interactive"` for one whose
 * stdin stays open (`spawn`: the request's stdin is its first write).
 */
export function planCommand(
  options: ResolvedOptions,
  request: ExecRequest,
  kind: "exec" | "session" | "interactive",
): CommandPlan {
  const { valid, ...common } = validCommand(options, request, PROVIDER);
  const interactive = kind === "interactive";
  const own = requestCommand(valid);
  // No stdin is end of file (`/dev/null`); the request's bytes are embedded or staged.
  const stdin: StdinPlan =
    interactive || valid.stdin === undefined
      ? { command: interactive ? own : `${own} </dev/null` }
      : planStdin(own, valid.stdin, {
          cwd: common.cwd,
          scratchDirectory: `${options.commandStateDirectory}/stdin`,
          name: randomUUID(),
          embedLimitBytes: EMBEDDED_STDIN_BYTES,
        });
  // A session's own script makes and enters the workspace root (`sessionScript`); `executeCommand`'s, here.
  let command = stdin.command;
  let processCwd = common.cwd;
  if (kind === "exec") {
    const started = startInWorkspace(options, common.cwd, stdin.command);
    command = daemonCommand(cappedScript(started.command, common.maxOutputBytes));
    processCwd = started.processCwd;
    assertCommandFits(command, PROVIDER);
  }
  return {
    command,
    ...common,
    processCwd,
    interactive,
    ...(stdin.upload ? { stdinUpload: stdin.upload } : {}),
    ...(interactive && valid.stdin !== undefined ? { firstWrite: valid.stdin } : {}),
  };
}

/**
 * A command as `executeCommand` or a terminal starts it in `cwd`: as it is,
 * but in the workspace root, which a launch does not make, it starts in the
 * sandbox user's home and first makes (when missing) and enters the workspace
 * by its path from there (`workspaceEntry`, `enterCwdScript`). When it can do
 * neither it exits `MISSING_CWD_EXIT` running nothing, the line saying so on
 * its stdout (`exec`'s wrapper keeps only that), where `exec` reads it.
 */
export function startInWorkspace(
  options: Pick<ResolvedOptions, "workspaceRoot">,
  cwd: string,
  command: string,
): { readonly command: string; readonly processCwd: string } {
  if (cwd !== options.workspaceRoot) return { command, processCwd: cwd };
  const { start, path } = workspaceEntry(DAYTONA_HOME, cwd);
  return { command: `${enterCwdScript(path, path)} 2>&1 && ${command}`, processCwd: start };
}

/** Uploads a plan's large stdin, if it has one (one request). */
export async function stageStdin(sandbox: DaytonaSandbox, plan: CommandPlan, budget: CallBudget): Promise<void> {
  const upload = plan.stdinUpload;
  if (!upload) return;
  const source = Buffer.from(upload.content.buffer, upload.content.byteOffset, upload.content.byteLength);
  await sandbox.fs.uploadFiles([{ source, destination: upload.path }], seconds(budget.remainingMs()));
}
