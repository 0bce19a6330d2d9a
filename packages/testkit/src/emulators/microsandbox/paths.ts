/**
 * Guest paths onto the backend workspace. The emulated guest filesystem is
 * the backend workspace: guest `/` is the workspace root, so `/app/a.txt` is
 * `app/a.txt` in the workspace and every absolute path maps somewhere. A
 * relative path resolves against `/`, as agentd (which runs in `/`) resolves it.
 *
 * @module
 */

import { posix } from "node:path";
import type { SandboxRuntime } from "@sandport/core";

/** A guest path that cannot be mapped (control characters, backslashes, NUL). */
export class GuestPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GuestPathError";
  }
}

// The port refuses these in paths; agentd would pass them to the kernel.
const UNMAPPABLE = /[\u0000-\u001f\u007f\\]/;

/** The absolute, normalised guest path (`/a/b`), `..` clamped at `/` as the kernel does. */
export function normalizeGuestPath(path: string): string {
  if (UNMAPPABLE.test(path)) throw new GuestPathError(`path ${JSON.stringify(path)} cannot be emulated`);
  return posix.resolve("/", path);
}

/** The workspace-relative path of a guest path (`""` for `/`). */
export function toWorkspaceRelative(path: string): string {
  return normalizeGuestPath(path).slice(1);
}

/** The guest path of a workspace-relative path. */
export function toGuestPath(relative: string): string {
  return `/${relative}`;
}

/**
 * What to hand the backend's file methods for a workspace-relative path: the
 * relative path itself, or the workspace root for `""`.
 */
export function toBackendPath(backend: SandboxRuntime, relative: string): string {
  return relative === "" ? backend.workspaceRoot : relative;
}

/** The parent of a workspace-relative path (`""` for a top-level entry and for the root). */
export function parentOf(relative: string): string {
  const index = relative.lastIndexOf("/");
  return index === -1 ? "" : relative.slice(0, index);
}
