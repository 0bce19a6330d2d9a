/**
 * Sandbox paths: `/vercel/sandbox` (the default working directory of every
 * Vercel session) is the backend workspace; files exist only there, while a
 * command may run in any directory of the backend (`/tmp`).
 *
 * @module
 */

import { posix } from "node:path";
import { normalizeWorkspacePath, SandportError, toSandboxPath } from "@sandport/core";
import { backendCwd } from "../harness/backend-cwd.js";

/** The default working directory of a Vercel session; it maps onto the backend workspace root. */
export const SANDBOX_ROOT = "/vercel/sandbox";

/** A sandbox path the emulator cannot map onto the backend workspace. */
export class PathRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PathRefusedError";
  }
}

/**
 * A sandbox path as a workspace-relative path (`""` for `/vercel/sandbox`
 * itself). A relative path resolves against `base` (itself resolved against
 * `/vercel/sandbox`), `..` included, as the sandbox's own filesystem would.
 * A result outside `/vercel/sandbox`, or one with control characters, is refused.
 */
export function toWorkspaceRelative(path: unknown, base: string = SANDBOX_ROOT): string {
  if (typeof path !== "string" || path === "") throw new PathRefusedError("path must be a non-empty string");
  const absolute = posix.resolve(SANDBOX_ROOT, base, path);
  if (absolute !== SANDBOX_ROOT && !absolute.startsWith(`${SANDBOX_ROOT}/`)) {
    throw new PathRefusedError(`the emulator maps only ${SANDBOX_ROOT} onto its workspace, not ${absolute}`);
  }
  try {
    return normalizeWorkspacePath(absolute, { root: SANDBOX_ROOT, allowRoot: true });
  } catch (error) {
    const reason = SandportError.isInstance(error) ? error.message : String(error);
    throw new PathRefusedError(reason, { cause: error });
  }
}

/**
 * A command's `cwd` for the backend (`backendCwd`): `""` for
 * `/vercel/sandbox`, workspace-relative under it, any other absolute
 * directory (`/tmp`) as it is, since a Vercel command runs anywhere in its
 * VM. `..` segments and control characters are refused.
 */
export function toBackendCwd(path: unknown): string {
  if (typeof path !== "string" || path === "") throw new PathRefusedError("cwd must be a non-empty string");
  try {
    return backendCwd(path, SANDBOX_ROOT) ?? "";
  } catch (error) {
    const reason = SandportError.isInstance(error) ? error.message : String(error);
    throw new PathRefusedError(reason, { cause: error });
  }
}

/** The absolute sandbox path of a backend `cwd` ({@link toBackendCwd}) or of a workspace-relative path. */
export function toSandboxAbsolute(relative: string): string {
  return relative.startsWith("/") ? relative : toSandboxPath(SANDBOX_ROOT, relative);
}

/**
 * One argument of a command, with a whole-argument sandbox path
 * (`/vercel/sandbox` or anything under it) rewritten to where the backend
 * workspace is as commands see it. Other arguments, and paths inside longer
 * arguments (`--out=/vercel/sandbox/x`, shell scripts), are left alone.
 */
export function mapArgument(argument: string, workspacePath: string): string {
  if (argument === SANDBOX_ROOT) return workspacePath;
  if (argument.startsWith(`${SANDBOX_ROOT}/`)) return workspacePath + argument.slice(SANDBOX_ROOT.length);
  return argument;
}
