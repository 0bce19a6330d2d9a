import { posix } from "node:path";
import { invalidRequest, quoteArgv, SandportError } from "@sandport/core";
import { runCommand } from "./exec.js";
import type { CallTiming, RuntimeContext } from "./internal/context.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { PROVIDER } from "./options.js";

/** A workspace-relative path to check, and whether its last component is followed when it is a symlink. */
export interface GuardedPath {
  /** Workspace-relative path (`""` for the root). */
  readonly relative: string;
  /**
   * `true` for reads, writes, listings and mkdir (a final symlink is followed
   * and must stay inside); `false` for stat and remove, which act on a final
   * symlink itself, so only its parent directory is resolved.
   */
  readonly followFinal: boolean;
}

/**
 * Refuses (`INVALID_REQUEST`) paths that resolve outside the workspace through
 * a symlink. E2B's file API follows symlinks, so this costs one command
 * (`realpath -m`) per file call, except in a sandbox this runtime launched and
 * in which no command has run yet: only this runtime's writes have touched it,
 * and those never make symlinks.
 */
export async function assertInsideWorkspace(
  context: RuntimeContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  paths: readonly GuardedPath[],
  timing: CallTiming,
): Promise<void> {
  if (paths.length === 0 || context.isPristine(sandboxId)) return;
  const targets = paths.map((path) => (path.followFinal ? path.relative : posix.dirname(path.relative)) || ".");
  const result = await runCommand(
    context,
    sandboxId,
    sandbox,
    {
      command: `realpath -m -- . ${quoteArgv(targets)}`,
      cwd: context.options.workspaceRoot,
      env: {},
      timeoutMs: timing.requestTimeoutMs,
      maxOutputBytes: 1024 * 1024,
    },
    timing.signal ?? new AbortController().signal,
  );
  const lines = result.stdout.split("\n");
  const root = lines[0];
  if (result.exitCode !== 0 || root === undefined || !root.startsWith("/") || lines.length < targets.length + 1) {
    throw new SandportError({
      code: "UNEXPECTED",
      provider: PROVIDER,
      retryable: false,
      message: `e2b could not resolve symlinks under the workspace (realpath -m): ${result.stderr.trim() || `exit ${result.exitCode}`}`,
      details: { sandboxId, exitCode: result.exitCode },
    });
  }
  paths.forEach((path, index) => {
    const resolved = lines[index + 1] as string;
    if (resolved === root || resolved.startsWith(root === "/" ? "/" : `${root}/`)) return;
    throw invalidRequest(
      `path ${JSON.stringify(path.relative)} resolves outside the workspace through a symlink`,
      { path: path.relative },
      PROVIDER,
    );
  });
}
