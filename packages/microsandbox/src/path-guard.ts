import { normalizeWorkspacePath, toSandboxPath } from "@sandport/core";
import { checkSymlinkGuard, type GuardedPath, type OperationCall, symlinkGuardScript } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { MsbSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

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
  if (!context.known.isPristine(name)) {
    checkSymlinkGuard(paths, await runScript(context, name, sandbox, symlinkGuardScript(paths), call), PROVIDER);
  }
}
