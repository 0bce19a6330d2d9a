import { posix } from "node:path";
import type { FileInfo, FileKind, OpOptions } from "@sandport/core";
import type { FreestyleContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { eachLimited, fileCall, onPath } from "./files.js";
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
  return onPath(context, handle, op, "listDir", { path, root: true, followFinal: true }, async (target, call) => {
    const entries = await fileCall(context, target.vmId, "listDir", target.absolute, call, (fs) =>
      fs.readDir(target.absolute),
    );
    const infos = await eachLimited(entries, STAT_CONCURRENCY, async (entry) => {
      const relative = target.relative === "" ? entry.name : `${target.relative}/${entry.name}`;
      const absolute = posix.join(target.absolute, entry.name);
      try {
        const stat = await fileCall(context, target.vmId, "listDir", absolute, call, (fs) => fs.stat(absolute));
        return toFileInfo(entry.name, relative, stat);
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
  return onPath(context, handle, op, "stat", { path, root: true, followFinal: false }, async (target, call) => {
    const info = await fileCall(context, target.vmId, "stat", target.absolute, call, (fs) => fs.stat(target.absolute));
    return toFileInfo(posix.basename(target.absolute), target.relative, info);
  });
}

/** Creates a directory and its parents; succeeds when it already exists. */
export function mkdir(context: FreestyleContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  return onPath(context, handle, op, "mkdir", { path, root: true, followFinal: true }, (target, call) =>
    fileCall(context, target.vmId, "mkdir", target.absolute, call, (fs) => fs.mkdir(target.absolute)),
  );
}

/** Removes a file or a directory tree; succeeds when it is already absent. The workspace root itself is refused. */
export function remove(context: FreestyleContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  return onPath(context, handle, op, "remove", { path, root: false, followFinal: false }, (target, call) =>
    fileCall(context, target.vmId, "remove", target.absolute, call, (fs) => fs.remove(target.absolute)).catch(
      (error: unknown) => {
        if (!isNotFound(error)) throw error;
      },
    ),
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
