import type { FileInfo, OpOptions } from "@sandport/core";
import { onGuardedPath } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { inWorkspace } from "./files.js";
import type { ModalFileInfo } from "./internal/sdk-types.js";

/** Entries of one directory (not recursive), with workspace-relative paths. */
export function listDir(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo[]> {
  const rule = { operation: "listDir", path, allowRoot: true, followFinal: true };
  return onGuardedPath(context, handle, op, rule, inWorkspace, async ({ instance, absolute }) =>
    (await instance.filesystem.listFiles(absolute)).map((entry) => toFileInfo(context.options.workspaceRoot, entry)),
  );
}

/** One entry's metadata; a symlink is reported as itself. A missing path rejects `NOT_FOUND`. */
export function stat(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo> {
  const rule = { operation: "stat", path, allowRoot: true, followFinal: false };
  return onGuardedPath(context, handle, op, rule, inWorkspace, async ({ instance, absolute }) =>
    toFileInfo(context.options.workspaceRoot, await instance.filesystem.stat(absolute)),
  );
}

/** Creates a directory and its parents; succeeds when it already exists. */
export function mkdir(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  const rule = { operation: "mkdir", path, allowRoot: true, followFinal: true };
  return onGuardedPath(context, handle, op, rule, inWorkspace, ({ instance, absolute }) =>
    instance.filesystem.makeDirectory(absolute, { createParents: true }),
  );
}

/** Removes a file or a directory tree; succeeds when it is already absent. The workspace root itself is refused. */
export function remove(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  const rule = { operation: "remove", path, allowRoot: false, followFinal: false };
  return onGuardedPath(context, handle, op, rule, inWorkspace, ({ instance, absolute }) =>
    instance.filesystem.remove(absolute, { recursive: true }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    }),
  );
}

/** Translates a Modal entry into a port `FileInfo` (a path outside the workspace stays absolute). */
function toFileInfo(root: string, entry: ModalFileInfo): FileInfo {
  const modified = new Date(entry.modifiedTime * 1000);
  const path =
    entry.path === root ? "" : entry.path.startsWith(`${root}/`) ? entry.path.slice(root.length + 1) : entry.path;
  return {
    name: entry.name,
    path,
    kind: ["file", "directory", "symlink"].includes(entry.type) ? entry.type : "other",
    size: Number(entry.size) || 0,
    mode: entry.mode & 0o7777,
    ...(entry.modifiedTime > 0 && !Number.isNaN(modified.getTime()) ? { modifiedAt: modified.toISOString() } : {}),
  };
}
