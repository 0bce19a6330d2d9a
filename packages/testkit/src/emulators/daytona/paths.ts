import { normalizeWorkspacePath, type SandboxRuntime, SandportError, toSandboxPath } from "@sandport/core";
import { backendCwd } from "../harness/backend-cwd.js";

/** Home and working directory of the default sandbox user `daytona`; it maps onto the backend workspace root. */
export const DAYTONA_HOME = "/home/daytona";

/** A sandbox path the emulator cannot map onto the backend workspace. */
export class PathRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PathRefusedError";
  }
}

/**
 * A sandbox path (absolute, or relative to the daemon's working directory
 * `/home/daytona` as the daemon resolves it) as a workspace-relative path
 * (`""` for the home directory itself). Paths outside `/home/daytona`, `..`
 * escapes and control characters are refused.
 */
export function toWorkspaceRelative(path: string): string {
  try {
    return normalizeWorkspacePath(path, { root: DAYTONA_HOME, allowRoot: true });
  } catch (error) {
    const reason = SandportError.isInstance(error) ? error.message : String(error);
    throw new PathRefusedError(`the emulator maps only ${DAYTONA_HOME} onto its workspace: ${reason}`, {
      cause: error,
    });
  }
}

/**
 * A process `cwd` for the backend (`backendCwd`): `undefined` for the home
 * directory, workspace-relative under it, any other absolute directory
 * (`/tmp`) as it is: the daemon runs a command anywhere in the machine.
 */
export function toBackendCwd(path: string): string | undefined {
  try {
    return backendCwd(path, DAYTONA_HOME);
  } catch (error) {
    const reason = SandportError.isInstance(error) ? error.message : String(error);
    throw new PathRefusedError(`cwd ${JSON.stringify(path)} is refused: ${reason}`, { cause: error });
  }
}

/** The absolute sandbox path of a workspace-relative path. */
export function toSandboxAbsolute(relative: string): string {
  return toSandboxPath(DAYTONA_HOME, relative);
}

/**
 * The path to hand the backend for a workspace-relative path: the relative
 * path itself (the port resolves it against the workspace), or the workspace
 * root for `""`.
 */
export function toBackendPath(backend: SandboxRuntime, relative: string): string {
  return relative === "" ? backend.workspaceRoot : relative;
}

/** The last segment of a workspace-relative path (`"daytona"` for the home directory). */
export function baseName(relative: string): string {
  if (relative === "") return "daytona";
  const index = relative.lastIndexOf("/");
  return index === -1 ? relative : relative.slice(index + 1);
}
