import { SandportError } from "../errors/sandport-error.js";
import type { CommandCwd } from "../validation/command-cwd.js";
import { toSandboxPath } from "../validation/workspace-path.js";

/**
 * A validated working directory as one absolute path inside the sandbox: a
 * workspace directory joined onto `workspaceRoot` (the runtime's, e.g.
 * `/home/user`), any other directory as it was given (`/tmp`). Every
 * adapter resolves `cwd` here, so that every runtime means the same place.
 */
export function resolveCwd(cwd: CommandCwd, workspaceRoot: string): string {
  return cwd.kind === "workspace" ? toSandboxPath(workspaceRoot, cwd.path) : cwd.path;
}

/** Details of the error for a working directory that does not exist: where, and anything the provider said. */
export interface MissingCwdDetails {
  /** The sandbox the command was for, when known. */
  readonly sandboxId?: string;
  /** What the provider said, when it said something (kept in the message). */
  readonly reason?: string;
  /** The error it answered with. */
  readonly cause?: unknown;
}

/**
 * `NOT_FOUND` for a command whose working directory does not exist (or is
 * not a directory) in the sandbox: the command did not run. Every runtime
 * reports a missing `cwd` with it, inside the workspace or not; the error
 * names the directory (`details.cwd`, absolute inside the sandbox).
 */
export function missingCwd(provider: string, cwd: string, details: MissingCwdDetails = {}): SandportError {
  const where = details.sandboxId === undefined ? "" : ` in sandbox ${details.sandboxId}`;
  const reason = details.reason?.trim() ? ` (${details.reason.trim()})` : "";
  return new SandportError({
    code: "NOT_FOUND",
    provider,
    retryable: false,
    message: `the working directory ${cwd} does not exist${where}, so the command did not run${reason}`,
    details: { cwd, ...(details.sandboxId === undefined ? {} : { sandboxId: details.sandboxId }) },
    ...(details.cause === undefined ? {} : { cause: details.cause }),
  });
}
