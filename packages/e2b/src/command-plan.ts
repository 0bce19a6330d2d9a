import { randomUUID } from "node:crypto";
import { composeShellCommand, type ExecRequest, enterCwdScript } from "@sandport/core";
import {
  assertCommandFits,
  type CallBudget,
  KILL_DEADLINE_MS,
  planStdin,
  validCommand,
  workspaceEntry,
} from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { E2B_HOME, type ResolvedOptions } from "./options.js";

/** A validated command, ready to send: what envd runs with `bash -l -c`. */
export interface CommandPlan {
  readonly command: string;
  /** Absolute working directory inside the sandbox. */
  readonly cwd: string;
  /**
   * The working directory envd starts the command in: `cwd`, but for the
   * workspace root, which a launch does not make: the command then starts in
   * the user's home, and its own script makes the workspace (when missing)
   * and enters it by its path from there (`workspaceEntry`).
   */
  readonly processCwd: string;
  /** Per-command environment (merged over the launch env by E2B). */
  readonly env: Record<string, string>;
  /** Value of `EXEC_MARKER_ENV` for this command, when it carries one. */
  readonly marker?: string;
  /** Command timeout in ms; always sent, so the SDK's implicit 60 s never applies. */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
  /** Stdin too large to embed: uploaded to `path` before the start; the command opens and deletes it. */
  readonly stdinUpload?: { readonly path: string; readonly content: Uint8Array };
  /** For a command whose stdin stays open (spawn): the request's `stdin`, written to it first. */
  readonly firstWrite?: string | Uint8Array;
}

/** Uploads a plan's large stdin, if it has one (one request). */
export async function stageStdin(sandbox: E2BSandbox, plan: CommandPlan, budget: CallBudget): Promise<void> {
  if (!plan.stdinUpload) return;
  const { path, content } = plan.stdinUpload;
  const data = content.buffer.slice(content.byteOffset, content.byteOffset + content.byteLength) as ArrayBuffer;
  await sandbox.files.write([{ path, data }], { requestTimeoutMs: budget.remainingMs(), signal: budget.signal });
}

/** Removes a plan's staged stdin after a start that ran nothing (the command removes it otherwise). */
export async function discardStdin(sandbox: E2BSandbox, plan: CommandPlan): Promise<void> {
  if (!plan.stdinUpload) return;
  await sandbox.files.remove(plan.stdinUpload.path, { requestTimeoutMs: KILL_DEADLINE_MS }).catch(() => undefined);
}

/**
 * Validates a request and turns it into what E2B takes: one command string.
 * `argv` is quoted with POSIX single quotes and `exec`ed; a `shell` script runs
 * in its own `sh -c`. Stdin is embedded, or staged as a file above 64 KiB
 * (`planStdin`); with `openStdin` (spawn) it is kept for the first write to
 * the command's own stdin instead. The timeout is the caller's, else the run budget.
 * A command in the workspace root starts in the user's home (`E2B_HOME`) and
 * makes and enters the workspace itself by its path from there
 * (`enterCwdScript`, `workspaceEntry`): a launch leaves it to its first use.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest, openStdin = false): CommandPlan {
  const { valid, ...common } = validCommand(options, request, PROVIDER);
  const staging = { cwd: common.cwd, scratchDirectory: options.scratchDirectory, name: randomUUID() };
  const stdin = planStdin(composeShellCommand({ request: valid }), openStdin ? undefined : valid.stdin, staging);
  // In the workspace root, which the first command to run there makes (within its own request).
  const entry = common.cwd === options.workspaceRoot ? workspaceEntry(E2B_HOME, common.cwd) : undefined;
  const command = entry ? `${enterCwdScript(entry.path, entry.path)} && ${stdin.command}` : stdin.command;
  assertCommandFits(command, PROVIDER);
  return {
    command,
    ...common,
    processCwd: entry?.start ?? common.cwd,
    ...(stdin.upload ? { stdinUpload: stdin.upload } : {}),
    ...(openStdin && valid.stdin !== undefined ? { firstWrite: valid.stdin } : {}),
  };
}
