/**
 * VM paths and the backend workspace. One VM directory (the emulator's
 * `workspaceDirectory`, by default the backend's `workspaceRoot`) maps onto
 * the backend workspace; file routes reach nothing outside it.
 *
 * @module
 */

import { normalizeWorkspacePath, type SandboxRuntime, SandportError, toSandboxPath } from "@sandport/core";
import { badRequest, notEmulated } from "./api.js";

const MAX_PATH_LENGTH = 4096;

/**
 * A VM path as a workspace-relative path (`""` for the directory itself).
 * Relative paths resolve against `base` when given (the `/v1` workdir) and
 * are refused otherwise, as `/v5` wants absolute paths. `..` segments and
 * over-long paths are 400 `BAD_REQUEST`; paths outside the mapped directory
 * are 400 `NOT_EMULATED`.
 */
export function toWorkspaceRelative(workspaceDirectory: string, path: string, base?: string): string {
  if (typeof path !== "string" || path === "") throw badRequest("path is required");
  if (path.length > MAX_PATH_LENGTH) throw badRequest(`path is longer than ${MAX_PATH_LENGTH} characters`);
  if (path.split("/").includes("..")) throw badRequest(`path ${JSON.stringify(path)} must not contain '..'`);
  let absolute = path;
  if (!path.startsWith("/")) {
    if (base === undefined) throw badRequest(`path ${JSON.stringify(path)} must be absolute`);
    absolute = `${base.replace(/\/+$/, "")}/${path}`;
  }
  const root = workspaceDirectory;
  const normalized = absolute.replace(/\/{2,}/g, "/").replace(/(.)\/+$/, "$1");
  if (normalized !== root && !normalized.startsWith(`${root}/`)) {
    throw notEmulated(`the emulator maps only ${root} onto its workspace, not ${path}`);
  }
  try {
    return normalizeWorkspacePath(normalized, { root, allowRoot: true });
  } catch (error) {
    throw badRequest(SandportError.isInstance(error) ? error.message : String(error));
  }
}

/** The VM path of a workspace-relative path. */
export function toVmPath(workspaceDirectory: string, relative: string): string {
  return toSandboxPath(workspaceDirectory, relative);
}

/**
 * The path to hand the backend's file methods: the relative path itself (the
 * port resolves it against the workspace), or the workspace root for `""`.
 */
export function toBackendPath(backend: SandboxRuntime, relative: string): string {
  return relative === "" ? backend.workspaceRoot : relative;
}

/** The last segment of a workspace-relative path (of the mapped directory for `""`). */
export function baseName(workspaceDirectory: string, relative: string): string {
  const path = toVmPath(workspaceDirectory, relative);
  return path.slice(path.lastIndexOf("/") + 1);
}
