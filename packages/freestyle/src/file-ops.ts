import { posix } from "node:path";
import type { FileInfo, FileKind, OpOptions } from "@sandport/core";
import { onGuardedPath } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { eachLimited, fileCall, inWorkspace } from "./files.js";
import type { FreestyleFileStat } from "./internal/sdk-types.js";

/** How many `stat` requests of one `listDir` are in flight at once. */
const STAT_CONCURRENCY = 8;

/**
 * Entries of one directory (not recursive), with workspace-relative paths:
 * `GET fs/dir` names them, then one `GET fs/stat` each gives kind, size,
 * mode and time (the listing carries names and kinds only). An entry removed
 * in between is left out.
 */
export function listDir(context: FreestyleContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo[]> {
  const rule = { operation: "listDir", path, allowRoot: true, followFinal: true, connect: false };
  return onGuardedPath(context, handle, op, rule, inWorkspace, async ({ sandboxId, relative, absolute, call }) => {
    const entries = await fileCall(context, sandboxId, "listDir", absolute, call, (fs) => fs.readDir(absolute));
    const infos = await eachLimited(entries, STAT_CONCURRENCY, async (entry) => {
      const entryPath = relative === "" ? entry.name : `${relative}/${entry.name}`;
      const entryAbsolute = posix.join(absolute, entry.name);
      try {
        const stat = await fileCall(context, sandboxId, "listDir", entryAbsolute, call, (fs) => fs.stat(entryAbsolute));
        return toFileInfo(entry.name, entryPath, stat);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
    return infos.filter((info): info is FileInfo => info !== undefined);
  });
}

/** One entry's metadata; a symlink is reported as itself. A missing path rejects `NOT_FOUND`. */
export function stat(context: FreestyleContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo> {
  const rule = { operation: "stat", path, allowRoot: true, followFinal: false, connect: false };
  return onGuardedPath(context, handle, op, rule, inWorkspace, async ({ sandboxId, relative, absolute, call }) => {
    const info = await fileCall(context, sandboxId, "stat", absolute, call, (fs) => fs.stat(absolute));
    return toFileInfo(posix.basename(absolute), relative, info);
  });
}

/** Creates a directory and its parents; succeeds when it already exists. */
export function mkdir(context: FreestyleContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  const rule = { operation: "mkdir", path, allowRoot: true, followFinal: true, connect: false };
  return onGuardedPath(context, handle, op, rule, inWorkspace, ({ sandboxId: vmId, absolute, call }) =>
    fileCall(context, vmId, "mkdir", absolute, call, (fs) => fs.mkdir(absolute)),
  );
}

/** Removes a file or a directory tree; succeeds when it is already absent. The workspace root itself is refused. */
export function remove(context: FreestyleContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  const rule = { operation: "remove", path, allowRoot: false, followFinal: false, connect: false };
  return onGuardedPath(context, handle, op, rule, inWorkspace, ({ sandboxId: vmId, absolute, call }) =>
    fileCall(context, vmId, "remove", absolute, call, (fs) => fs.remove(absolute)).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    }),
  );
}

/** Translates a Freestyle `stat` into a port `FileInfo`. */
function toFileInfo(name: string, relative: string, stat: FreestyleFileStat): FileInfo {
  const mode = Number.parseInt(stat.permissions, 8);
  const modified = new Date(stat.modified);
  return {
    name,
    path: relative,
    kind: kindOf(stat),
    size: Number(stat.size) || 0,
    ...(Number.isNaN(mode) ? {} : { mode: mode & 0o7777 }),
    ...(Number.isNaN(modified.getTime()) ? {} : { modifiedAt: modified.toISOString() }),
  };
}

function kindOf(stat: FreestyleFileStat): FileKind {
  if (stat.isSymlink) return "symlink";
  if (stat.isDirectory) return "directory";
  if (stat.isFile) return "file";
  return "other";
}
