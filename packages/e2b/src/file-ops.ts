import type { FileInfo, FileKind, OpOptions } from "@sandport/core";
import { onGuardedPath } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { inWorkspace, request } from "./files.js";
import type { E2BEntryInfo } from "./internal/sdk-types.js";

/** Entries of one directory (not recursive), with workspace-relative paths. */
export function listDir(context: E2BContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo[]> {
  const rule = { operation: "listDir", path, allowRoot: true, followFinal: true };
  return onGuardedPath(context, handle, op, rule, inWorkspace, async ({ instance, absolute, call }) =>
    (await instance.files.list(absolute, { ...request(call), depth: 1 })).map((entry) =>
      toFileInfo(context.options.workspaceRoot, entry),
    ),
  );
}

/** One entry's metadata; a symlink is reported as itself. A missing path rejects `NOT_FOUND`. */
export function stat(context: E2BContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo> {
  const rule = { operation: "stat", path, allowRoot: true, followFinal: false };
  return onGuardedPath(context, handle, op, rule, inWorkspace, async ({ instance, absolute, call }) =>
    toFileInfo(context.options.workspaceRoot, await instance.files.getInfo(absolute, request(call))),
  );
}

/** Creates a directory and its parents; succeeds when it already exists. */
export function mkdir(context: E2BContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  const rule = { operation: "mkdir", path, allowRoot: true, followFinal: true };
  return onGuardedPath(context, handle, op, rule, inWorkspace, async ({ instance, absolute, call }) => {
    await instance.files.makeDir(absolute, request(call));
  });
}

/** Removes a file or a directory tree; succeeds when it is already absent. The workspace root itself is refused. */
export function remove(context: E2BContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  const rule = { operation: "remove", path, allowRoot: false, followFinal: false };
  return onGuardedPath(context, handle, op, rule, inWorkspace, ({ instance, absolute, call }) =>
    instance.files.remove(absolute, request(call)).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    }),
  );
}

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
