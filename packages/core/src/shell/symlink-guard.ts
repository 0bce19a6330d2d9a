import { posix } from "node:path";
import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { quoteArgv } from "./quote.js";

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
 * For providers whose file API follows symlinks: a command, run in the
 * workspace, that prints the workspace's real path and then each target's
 * (`realpath -m`, so missing parts are fine). {@link checkSymlinkGuard}
 * reads its output.
 */
export function symlinkGuardScript(paths: readonly GuardedPath[]): string {
  return `realpath -m -- . ${quoteArgv(guardTargets(paths))}`;
}

/**
 * Reads the guard's result: refuses (`INVALID_REQUEST`) the first path that
 * resolves outside the workspace, and fails (`UNEXPECTED`) when the guard
 * itself did not run cleanly.
 */
export function checkSymlinkGuard(
  paths: readonly GuardedPath[],
  result: { readonly exitCode: number | null; readonly stdout: string; readonly stderr: string },
  provider: string,
): void {
  const lines = result.stdout.split("\n");
  const root = lines[0];
  if (result.exitCode !== 0 || root === undefined || !root.startsWith("/") || lines.length < paths.length + 1) {
    throw new SandportError({
      code: "UNEXPECTED",
      provider,
      retryable: false,
      message: `${provider} could not resolve symlinks under the workspace (realpath -m): ${result.stderr.trim() || `exit ${result.exitCode}`}`,
      details: { exitCode: result.exitCode },
    });
  }
  paths.forEach((path, index) => {
    const resolved = lines[index + 1] as string;
    if (resolved === root || resolved.startsWith(root === "/" ? "/" : `${root}/`)) return;
    throw invalidRequest(
      `path ${JSON.stringify(path.relative)} resolves outside the workspace through a symlink`,
      { path: path.relative },
      provider,
    );
  });
}

function guardTargets(paths: readonly GuardedPath[]): string[] {
  return paths.map((path) => (path.followFinal ? path.relative : posix.dirname(path.relative)) || ".");
}
