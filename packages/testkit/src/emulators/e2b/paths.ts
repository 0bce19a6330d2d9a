import { normalizeWorkspacePath, type SandboxRuntime, SandportError, toSandboxPath } from "@sandport/core";
import { backendCwd } from "../harness/backend-cwd.js";

/** Home and default working directory of the E2B sandbox user; it maps onto the backend workspace root. */
export const E2B_HOME = "/home/user";

/** Names at the workspace root that belong to the emulator (stdin pipes); hidden from listings. */
export const CONTROL_PREFIX = ".e2b-emulator-";

/** A sandbox path the emulator cannot map onto the backend workspace. */
export class PathRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PathRefusedError";
  }
}

/**
 * A sandbox path (absolute, or relative to `/home/user` as envd resolves it)
 * as a workspace-relative path (`""` for the home directory itself). Paths
 * outside `/home/user`, `..` escapes and control characters are refused.
 */
export function toWorkspaceRelative(path: string): string {
  try {
    return normalizeWorkspacePath(path, { root: E2B_HOME, allowRoot: true });
  } catch (error) {
    const reason = SandportError.isInstance(error) ? error.message : String(error);
    throw new PathRefusedError(`the emulator maps only ${E2B_HOME} onto its workspace: ${reason}`, { cause: error });
  }
}

/**
 * A process `cwd` for the backend: `undefined` for the home directory (the
 * backend's workspace root), a workspace-relative path under it, and any
 * other absolute directory as it is (`/tmp`), since envd runs a process
 * anywhere in the machine. `..` escapes and control characters are refused.
 */
export function toBackendCwd(path: string): string | undefined {
  try {
    return backendCwd(path, E2B_HOME);
  } catch (error) {
    const reason = SandportError.isInstance(error) ? error.message : String(error);
    throw new PathRefusedError(`cwd ${JSON.stringify(path)} is refused: ${reason}`, { cause: error });
  }
}

/** The absolute sandbox path of a workspace-relative path. */
export function toSandboxAbsolute(relative: string): string {
  return toSandboxPath(E2B_HOME, relative);
}

/**
 * The path to hand the backend's file methods for a workspace-relative path:
 * the relative path itself (the port resolves it against the workspace), or
 * the workspace root for `""`. Commands get relative paths too and run from the
 * workspace root, which works whether or not the backend maps absolute paths.
 */
export function toBackendPath(backend: SandboxRuntime, relative: string): string {
  return relative === "" ? backend.workspaceRoot : relative;
}

/** The last segment of a workspace-relative path (`"user"` for the home directory). */
export function baseName(relative: string): string {
  if (relative === "") return "user";
  const index = relative.lastIndexOf("/");
  return index === -1 ? relative : relative.slice(index + 1);
}

/** True for an emulator control entry that listings must not show. */
export function isControlEntry(relative: string): boolean {
  return !relative.includes("/") && relative.startsWith(CONTROL_PREFIX);
}
