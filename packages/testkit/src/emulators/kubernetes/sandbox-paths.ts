/**
 * sandboxd's path rule: every file path and working directory is resolved
 * against the sandbox root (`/workspace`) and refused when it escapes it.
 * Relative paths are under the root; an absolute path must lie inside it.
 *
 * @module
 */

import { posix } from "node:path";

/** The sandbox root sandboxd confines files and working directories to. */
export const SANDBOX_ROOT = "/workspace";

/**
 * The absolute path inside the root for a user path, or undefined when it
 * escapes (`..` above the root, an absolute path elsewhere).
 */
export function confine(userPath: string): string | undefined {
  const cleaned = posix.normalize(userPath === "" ? "." : userPath);
  let relative: string;
  if (cleaned.startsWith("/")) {
    if (cleaned === SANDBOX_ROOT || cleaned === `${SANDBOX_ROOT}/`) return SANDBOX_ROOT;
    if (!cleaned.startsWith(`${SANDBOX_ROOT}/`)) return undefined;
    relative = cleaned.slice(SANDBOX_ROOT.length + 1);
  } else {
    relative = cleaned;
  }
  const joined = posix.normalize(posix.join(SANDBOX_ROOT, relative));
  if (joined !== SANDBOX_ROOT && !joined.startsWith(`${SANDBOX_ROOT}/`)) return undefined;
  return joined.replace(/\/$/, "");
}

/**
 * A confined path as the backend takes it: relative to its workspace (which
 * stands for `/workspace`), and the workspace itself by the backend's own
 * root, so a backend rooted elsewhere works the same.
 */
export function backendPath(confined: string, workspaceRoot: string): string {
  return confined === SANDBOX_ROOT ? workspaceRoot : confined.slice(SANDBOX_ROOT.length + 1);
}

/** A working directory for the backend: undefined for the root (the backend's default). */
export function backendCwdOf(confined: string): string | undefined {
  return confined === SANDBOX_ROOT ? undefined : confined.slice(SANDBOX_ROOT.length + 1);
}
