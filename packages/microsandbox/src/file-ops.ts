import { posix } from "node:path";
import { type FileInfo, SandportError } from "@sandport/core";
import { guardedFileOps, whenAbsent } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { isDirectoryError, isNotFound } from "./errors.js";
import { inWorkspace } from "./files.js";
import { PROVIDER } from "./handle.js";
import type { MsbFsEntry, MsbSandbox } from "./internal/sdk-types.js";

/**
 * `listDir`: entries of one directory (not recursive), sorted by name, with
 * workspace-relative paths. `stat`: one entry's metadata; a symlink is
 * reported as itself (agentd's `stat` follows symlinks, so the entry is read
 * from its directory's listing instead); a missing path rejects `NOT_FOUND`.
 * `mkdir`: a directory and its parents; succeeds when it already exists.
 * `remove`: a file, a symlink (itself) or a directory tree; succeeds when it
 * is already absent; the workspace root itself is refused.
 */
export const { listDir, stat, mkdir, remove } = guardedFileOps<MicrosandboxContext, MsbSandbox>({
  inWorkspace,
  listDir: async (context, { instance, absolute }) =>
    (await instance.fs().list(absolute))
      .map((entry) => toFileInfo(context.options.workspaceRoot, entry))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0)),
  stat: async (context, { instance, absolute, sandboxId: name }) => {
    const fs = instance.fs();
    const root = context.options.workspaceRoot;
    if (absolute === "/") return { name: "", path: "", kind: "directory", size: 0 };
    const base = posix.basename(absolute);
    const entry = (await fs.list(posix.dirname(absolute))).find((candidate) => posix.basename(candidate.path) === base);
    if (!entry) {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: PROVIDER,
        retryable: false,
        message: `microsandbox stat failed (sandbox ${name}, ${absolute}): no such file or directory`,
        details: { operation: "stat", sandboxId: name, path: absolute },
      });
    }
    return toFileInfo(root, { ...entry, path: absolute });
  },
  mkdir: (_context, { instance, absolute }) => instance.fs().mkdir(absolute),
  remove: async (_context, { instance, absolute }) => {
    const fs = instance.fs();
    try {
      await fs.remove(absolute);
    } catch (error) {
      if (isNotFound(error)) return;
      if (!isDirectoryError(error)) throw error;
      await fs.removeDir(absolute).catch(whenAbsent(isNotFound, undefined));
    }
  },
});

/** Translates an agent entry into a port `FileInfo`. */
function toFileInfo(workspaceRoot: string, entry: MsbFsEntry): FileInfo {
  const modified =
    entry.modified instanceof Date && !Number.isNaN(entry.modified.getTime()) ? entry.modified : undefined;
  return {
    name: posix.basename(entry.path),
    path: relativeToRoot(workspaceRoot, entry.path),
    kind: entry.kind,
    size: Number(entry.size) || 0,
    ...(typeof entry.mode === "number" ? { mode: entry.mode & 0o7777 } : {}),
    ...(modified ? { modifiedAt: modified.toISOString() } : {}),
  };
}

function relativeToRoot(root: string, absolute: string): string {
  if (absolute === root) return "";
  if (root === "/") return absolute.slice(1);
  return absolute.startsWith(`${root}/`) ? absolute.slice(root.length + 1) : absolute;
}
