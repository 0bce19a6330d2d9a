import { randomUUID } from "node:crypto";
import { type ExecResult, normalizeWorkspacePath, toSandboxPath } from "@sandport/core";
import { checkSymlinkGuard, type GuardedPath, type OperationCall, symlinkGuardScript } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { MsbSandbox } from "./internal/sdk-types.js";
import { EXEC_MARKER_ENV } from "./markers.js";
import { RemoteCommand } from "./remote-command.js";

/** Output cap of the adapter's own helper scripts (symlink guard, chmod). */
const SCRIPT_OUTPUT_BYTES = 1024 * 1024;

/** A single-path file operation's target, validated. */
export interface PathTarget {
  /** Workspace-relative path (`""` for the root). */
  readonly relative: string;
  /** Absolute path inside the sandbox. */
  readonly absolute: string;
}

/** Validates a caller's path against the workspace (`INVALID_REQUEST` before any request). */
export function pathTarget(context: MicrosandboxContext, path: unknown, allowRoot: boolean): PathTarget {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(path, { root, allowRoot, provider: PROVIDER });
  return { relative, absolute: toSandboxPath(root, relative) };
}

/**
 * Runs one of the adapter's own scripts (symlink guard, chmod) in the
 * workspace, to completion, within the caller's time; the caller's abort
 * kills it.
 */
export async function runScript(
  context: MicrosandboxContext,
  name: string,
  sandbox: MsbSandbox,
  script: string,
  call: OperationCall,
): Promise<ExecResult> {
  const marker = randomUUID();
  const command = await RemoteCommand.start(sandbox, name, {
    cmd: "/bin/sh",
    args: ["-c", script],
    cwd: context.options.workspaceRoot,
    env: { ...context.launchEnv(name), [EXEC_MARKER_ENV]: marker },
    marker,
    timeoutMs: Math.max(1, call.remainingMs()),
    maxOutputBytes: SCRIPT_OUTPUT_BYTES,
  });
  const onAbort = () => void command.kill("aborted");
  call.signal.addEventListener("abort", onAbort, { once: true });
  try {
    await command.closeStdin();
    return await command.result;
  } finally {
    call.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Refuses (`INVALID_REQUEST`) paths that resolve outside the workspace
 * through a symlink. agentd's file calls follow symlinks, so this costs one
 * command (`symlinkGuardScript`, GNU `realpath -m`) per file call, except in
 * a sandbox this runtime launched and in which no command has run yet: only
 * this runtime's writes have touched it, and those never make symlinks.
 */
export async function guardPaths(
  context: MicrosandboxContext,
  name: string,
  sandbox: MsbSandbox,
  call: OperationCall,
  paths: readonly GuardedPath[],
): Promise<void> {
  if (!context.isPristine(name)) {
    checkSymlinkGuard(paths, await runScript(context, name, sandbox, symlinkGuardScript(paths), call), PROVIDER);
  }
}
