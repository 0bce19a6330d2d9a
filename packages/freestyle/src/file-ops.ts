import { posix } from "node:path";
import type { FileInfo, FileKind } from "@sandport/core";
import { guardedFileOps, whenAbsent } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { eachLimited, fileCall, inWorkspace } from "./files.js";
import type { FreestyleFileStat } from "./internal/sdk-types.js";

/** How many `stat` requests of one `listDir` are in flight at once. */
const STAT_CONCURRENCY = 8;

/**
 * `listDir`: entries of one directory (not recursive), with workspace-relative
 * paths: `GET fs/dir` names them, then one `GET fs/stat` each gives kind,
 * size, mode and time (the listing carries names and kinds only); an entry
 * removed in between is left out. `stat`: one entry's metadata; a symlink is
 * reported as itself, a missing path rejects `NOT_FOUND`. `mkdir`: a
 * directory and its parents; succeeds when it already exists. `remove`: a
 * file or a directory tree; succeeds when it is already absent; the workspace
 * root itself is refused.
 */
export const { listDir, stat, mkdir, remove } = guardedFileOps<FreestyleContext, never>({
  inWorkspace,
  connect: false,
  listDir: async (context, { sandboxId, relative, absolute, call }) => {
    const entries = await fileCall(context, sandboxId, "listDir", absolute, call, (fs) => fs.readDir(absolute));
    const infos = await eachLimited(entries, STAT_CONCURRENCY, async (entry) => {
      const entryPath = relative === "" ? entry.name : `${relative}/${entry.name}`;
      const entryAbsolute = posix.join(absolute, entry.name);
      const stat = fileCall(context, sandboxId, "listDir", entryAbsolute, call, (fs) => fs.stat(entryAbsolute));
      return stat.then((found) => toFileInfo(entry.name, entryPath, found), whenAbsent(isNotFound, undefined));
    });
    return infos.filter((info): info is FileInfo => info !== undefined);
  },
  stat: async (context, { sandboxId, relative, absolute, call }) => {
    const info = await fileCall(context, sandboxId, "stat", absolute, call, (fs) => fs.stat(absolute));
    return toFileInfo(posix.basename(absolute), relative, info);
  },
  mkdir: (context, { sandboxId: vmId, absolute, call }) =>
    fileCall(context, vmId, "mkdir", absolute, call, (fs) => fs.mkdir(absolute)),
  remove: (context, { sandboxId: vmId, absolute, call }) =>
    fileCall(context, vmId, "remove", absolute, call, (fs) => fs.remove(absolute)).catch(
      whenAbsent(isNotFound, undefined),
    ),
});

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
