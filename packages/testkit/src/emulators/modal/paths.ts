import { normalizeWorkspacePath, type SandboxRuntime, SandportError, toSandboxPath } from "@sandport/core";

/** A sandbox path the emulator cannot map onto the backend workspace. */
export class PathRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PathRefusedError";
  }
}

/**
 * How sandbox paths map onto the backend workspace: one absolute directory of
 * the sandbox (the emulator's `workspacePath`, `/workspace` by default) is the
 * workspace root; anything outside it is refused.
 */
export class SandboxPaths {
  /** The sandbox directory that is the workspace root. */
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** A sandbox path (absolute, or relative to the workspace) as a workspace-relative path (`""` for the root). */
  toRelative(path: string): string {
    try {
      return normalizeWorkspacePath(path, { root: this.root, allowRoot: true });
    } catch (error) {
      const reason = SandportError.isInstance(error) ? error.message : String(error);
      throw new PathRefusedError(`the emulator maps only ${this.root} onto its workspace: ${reason}`, { cause: error });
    }
  }

  /** The absolute sandbox path of a workspace-relative path. */
  toAbsolute(relative: string): string {
    return toSandboxPath(this.root, relative);
  }
}

/**
 * The path to hand the backend's file methods for a workspace-relative path:
 * the relative path itself (the port resolves it against the workspace), or
 * the workspace root for `""`.
 */
export function toBackendPath(backend: SandboxRuntime, relative: string): string {
  return relative === "" ? backend.workspaceRoot : relative;
}
