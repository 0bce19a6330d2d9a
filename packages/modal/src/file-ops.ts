import type { FileInfo } from "@sandport/core";
import { guardedFileOps, whenAbsent } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { inWorkspace } from "./files.js";
import type { ModalFileInfo, ModalSandbox } from "./internal/sdk-types.js";

/**
 * `listDir`: entries of one directory (not recursive), with workspace-relative
 * paths. `stat`: one entry's metadata; a symlink is reported as itself, a
 * missing path rejects `NOT_FOUND`. `mkdir`: a directory and its parents;
 * succeeds when it already exists. `remove`: a file or a directory tree;
 * succeeds when it is already absent; the workspace root itself is refused.
 */
export const { listDir, stat, mkdir, remove } = guardedFileOps<ModalContext, ModalSandbox>({
  inWorkspace,
  listDir: async (context, { instance, absolute }) =>
    (await instance.filesystem.listFiles(absolute)).map((entry) => toFileInfo(context.options.workspaceRoot, entry)),
  stat: async (context, { instance, absolute }) =>
    toFileInfo(context.options.workspaceRoot, await instance.filesystem.stat(absolute)),
  mkdir: (_context, { instance, absolute }) => instance.filesystem.makeDirectory(absolute, { createParents: true }),
  remove: (_context, { instance, absolute }) =>
    instance.filesystem.remove(absolute, { recursive: true }).catch(whenAbsent(isNotFound, undefined)),
});

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
