import { lstat } from "node:fs/promises";
import { invalidRequest, SandportError } from "@sandport/core";
import { LOCAL_PROVIDER } from "../options.js";

/** `INVALID_REQUEST` for a workspace path that may not be used as asked. */
export function refusePath(path: string, why: string): SandportError {
  return invalidRequest(`path ${JSON.stringify(path)} ${why}`, { path }, LOCAL_PROVIDER);
}

/** `NOT_FOUND` for a workspace path; `what` names it in the message (e.g. "working directory"). */
export function missingPath(path: string, what?: string): SandportError {
  const subject = what === undefined ? JSON.stringify(path) : `the ${what} ${JSON.stringify(path)}`;
  return new SandportError({
    code: "NOT_FOUND",
    provider: LOCAL_PROVIDER,
    message: `${subject} does not exist in the workspace`,
    details: { path },
  });
}

/** `NOT_FOUND` for a sandbox whose workspace directory is gone. */
export function workspaceGone(): SandportError {
  return new SandportError({ code: "NOT_FOUND", provider: LOCAL_PROVIDER, message: "the sandbox's workspace is gone" });
}

/** The errno code of a file system error, if any. */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Turns a file system error about workspace path `path` into the matching `SandportError`; rethrows others. */
export function fileError(error: unknown, path: string, symlinkWhy = "is a symlink"): SandportError {
  if (SandportError.isInstance(error)) return error;
  switch (errorCode(error)) {
    case "ENOENT":
      return missingPath(path);
    case "ELOOP":
      return refusePath(path, symlinkWhy);
    case "ENOTDIR":
      return refusePath(path, "has a parent that is not a directory");
    case "EISDIR":
      return refusePath(path, "is a directory");
    case "ENXIO":
      return refusePath(path, "is not a regular file");
    case "ENAMETOOLONG":
      return refusePath(path, "has a name too long for the file system");
    default:
      throw error;
  }
}

/** Whether anything is at `path` (a symlink is not followed). */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
