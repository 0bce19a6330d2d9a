import { normalizeWorkspacePath, type OpOptions, toSandboxPath } from "@sandport/core";
import { checkSymlinkGuard, type GuardedPath, type OperationCall, symlinkGuardScript } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { MsbFs, MsbSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

/** A single-path file operation's target, validated. */
export interface PathTarget {
  /** Workspace-relative path (`""` for the root). */
  readonly relative: string;
  /** Absolute path inside the sandbox. */
  readonly absolute: string;
}

/** Validates a caller's path against the workspace (`INVALID_REQUEST` before any request). */
function pathTarget(context: MicrosandboxContext, path: unknown, allowRoot: boolean): PathTarget {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(path, { root, allowRoot, provider: PROVIDER });
  return { relative, absolute: toSandboxPath(root, relative) };
}

/** How a file operation treats its path. */
interface PathRules {
  /** Whether the workspace root itself is allowed. */
  readonly root: boolean;
  /** See `GuardedPath.followFinal`. */
  readonly followFinal: boolean;
}

/**
 * Runs one single-path file operation: the path validated against the
 * workspace, the symlink guard, then `work` on the sandbox's filesystem.
 */
export async function onPath<T>(
  context: MicrosandboxContext,
  handle: unknown,
  op: OpOptions | undefined,
  operation: string,
  path: string,
  rules: PathRules,
  work: (fs: MsbFs, target: PathTarget, name: string, call: OperationCall) => Promise<T>,
): Promise<T> {
  const target = pathTarget(context, path, rules.root);
  const site = { operation, path: target.absolute };
  const { fileMs } = context.options.timeouts;
  return context.onInstance(handle, op, site, fileMs, async (sandbox, call, name) => {
    await guardPaths(context, name, sandbox, call, [{ relative: target.relative, followFinal: rules.followFinal }]);
    return work(sandbox.fs(), target, name, call);
  });
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
