import type { FileInfo, FileKind } from "@sandport/core";
import { guardedFileOps, whenAbsent } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { inWorkspace, request } from "./files.js";
import type { E2BEntryInfo, E2BSandbox } from "./internal/sdk-types.js";

/**
 * `listDir`: entries of one directory (not recursive), with workspace-relative
 * paths. `stat`: one entry's metadata; a symlink is reported as itself, a
 * missing path rejects `NOT_FOUND`. `mkdir`: a directory and its parents;
 * succeeds when it already exists. `remove`: a file or a directory tree;
 * succeeds when it is already absent; the workspace root itself is refused.
 */
export const { listDir, stat, mkdir, remove } = guardedFileOps<E2BContext, E2BSandbox>({
  inWorkspace,
  listDir: async (context, { instance, absolute, call }) =>
    (await instance.files.list(absolute, { ...request(call), depth: 1 })).map((entry) =>
      toFileInfo(context.options.workspaceRoot, entry),
    ),
  stat: async (context, { instance, absolute, call }) =>
    toFileInfo(context.options.workspaceRoot, await instance.files.getInfo(absolute, request(call))),
  mkdir: async (_context, { instance, absolute, call }) => {
    await instance.files.makeDir(absolute, request(call));
  },
  remove: (_context, { instance, absolute, call }) =>
    instance.files.remove(absolute, request(call)).catch(whenAbsent(isNotFound, undefined)),
});

/** Translates an E2B entry into a port `FileInfo`. */
function toFileInfo(workspaceRoot: string, entry: E2BEntryInfo): FileInfo {
  const modifiedAt = entry.modifiedTime instanceof Date ? entry.modifiedTime : undefined;
  return {
    name: entry.name,
    path: relativeToRoot(workspaceRoot, entry.path),
    kind: kindOf(entry),
    size: Number(entry.size) || 0,
    ...(typeof entry.mode === "number" ? { mode: entry.mode & 0o7777 } : {}),
    ...(modifiedAt && !Number.isNaN(modifiedAt.getTime()) ? { modifiedAt: modifiedAt.toISOString() } : {}),
  };
}

function kindOf(entry: E2BEntryInfo): FileKind {
  if (entry.symlinkTarget || entry.type === "symlink") return "symlink";
  if (entry.type === "dir") return "directory";
  if (entry.type === "file") return "file";
  return "other";
}

function relativeToRoot(root: string, absolute: string): string {
  if (absolute === root) return "";
  return absolute.startsWith(`${root}/`) ? absolute.slice(root.length + 1) : absolute;
}
