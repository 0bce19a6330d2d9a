import { randomBytes } from "node:crypto";
import { chmodSync, type Dirent } from "node:fs";
import { readdir, rename, rmdir, unlink } from "node:fs/promises";
import { type AnchoredDirectory, withPathDescriptor } from "./anchored-directory.js";
import { errorCode } from "./file-errors.js";

/** Rounds of emptying a directory that keeps getting new entries (a process still writing into it) before giving up. */
const MAX_REFILLS = 8;
/** Entries of one directory removed at a time. */
const CONCURRENCY = 16;

/** Why a tree could not be removed completely. */
export class TreeRemovalError extends Error {
  /** The errno code that stopped it, when there was one. */
  readonly code: string | undefined;

  constructor(message: string, options: { cause?: unknown; code?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TreeRemovalError";
    this.code = options.code;
  }
}

/**
 * Removes entry `name` of `container` and everything below it, without ever
 * following a symlink and without paths that grow with depth.
 *
 * Each directory is opened through the held `container` (see
 * `AnchoredDirectory`), its files and symlinks are unlinked, and its
 * subdirectories are renamed up into `container` under fresh names, to be
 * emptied in turn. So every path used is `<container>/<name>/<entry>`: a chain
 * deeper than `PATH_MAX` costs nothing extra, and a symlink planted anywhere is
 * removed, never entered. A directory whose mode keeps the runtime out (a
 * command's `chmod 000`) is given its owner's `rwx` first. A directory on
 * another device (a mount point) is not entered: that is an error.
 *
 * `container` should be a directory nothing else writes into (the renamed
 * subdirectories pass through it). Resolves when the entry is gone (or was
 * never there); rejects with a {@link TreeRemovalError} saying what stopped it.
 */
export async function removeTree(container: AnchoredDirectory, name: string): Promise<void> {
  const device = container.stat().dev;
  // The named entry is emptied at once (it is usually full: a workspace). What emptying moves up is
  // usually empty by the time it is reached (`.tmp`, the last directory of a chain): one `rmdir` removes those.
  const queue = [name];
  for (let first = true; queue.length > 0; first = false) {
    const current = queue.pop() as string;
    const attempt = first ? "occupied" : await tryRmdir(container.entry(current));
    if (attempt === "gone") continue;
    if (attempt === "not a directory") {
      await unlinkEntry(container.entry(current));
      continue;
    }
    for (let refills = 0; ; refills++) {
      const emptied = await emptyDirectory(container, current, device);
      if (emptied === "absent") break;
      if (emptied === "not a directory") {
        await unlinkEntry(container.entry(current));
        break;
      }
      queue.push(...emptied);
      try {
        await rmdir(container.entry(current));
        break;
      } catch (error) {
        const code = errorCode(error);
        if (code === "ENOENT") break;
        // Something created an entry meanwhile: empty it again, a bounded number of times.
        if ((code !== "ENOTEMPTY" && code !== "EEXIST") || refills >= MAX_REFILLS) throw removalFailed(current, error);
      }
    }
  }
}

/**
 * Removes directory `name` of `parent` by first renaming it into `trash` (a
 * directory outside the workspace, on the same file system), then removing it
 * there: once moved, nothing running in the sandbox can reach into it.
 */
export async function removeDirectoryVia(
  parent: AnchoredDirectory,
  name: string,
  trash: AnchoredDirectory,
): Promise<void> {
  const moved = `removing-${randomBytes(6).toString("hex")}`;
  await moveDirectory(parent.entry(name), trash.entry(moved));
  await removeTree(trash, moved);
}

/**
 * Unlinks every non-directory in `container/name` and moves its subdirectories
 * up; returns their new names, or what `name` turned out to be instead of a
 * directory.
 */
async function emptyDirectory(
  container: AnchoredDirectory,
  name: string,
  device: number,
): Promise<string[] | "absent" | "not a directory"> {
  const directory = openForRemoval(container, name);
  if (typeof directory === "string") return directory;
  try {
    const stats = directory.stat();
    if (stats.dev !== device) {
      throw new TreeRemovalError(`${name} is a mount point; refusing to remove what is mounted there`);
    }
    // Unlinking needs write and search permission on the directory itself (a command's `chmod 500`).
    if ((stats.mode & 0o700) !== 0o700) grantOwnerAccess(container.entry(name));
    const entries = await readdir(directory.path, { withFileTypes: true }).catch((error) =>
      Promise.reject(removalFailed(name, error)),
    );
    const hoisted: string[] = [];
    for (let start = 0; start < entries.length; start += CONCURRENCY) {
      await Promise.all(
        entries.slice(start, start + CONCURRENCY).map(async (entry) => {
          const path = directory.entry(entry.name);
          if (isNonDirectory(entry)) return unlinkEntry(path);
          // A directory, or a type the listing did not give: moved up whatever it is now (a rename never
          // follows a symlink), then removed from there by the caller's loop.
          const newName = `.sandport-removing-${randomBytes(6).toString("hex")}`;
          await moveDirectory(path, container.entry(newName));
          hoisted.push(newName);
        }),
      );
    }
    return hoisted;
  } finally {
    directory.close();
  }
}

/** Whether a listed entry is known not to be a directory (some file systems leave the type out). */
function isNonDirectory(entry: Dirent): boolean {
  return (
    entry.isFile() ||
    entry.isSymbolicLink() ||
    entry.isFIFO() ||
    entry.isSocket() ||
    entry.isBlockDevice() ||
    entry.isCharacterDevice()
  );
}

/**
 * Removes `path` if it is an empty directory. Otherwise says why not: not a
 * directory (a file, a symlink: never followed), or one that emptying must
 * deal with (entries, a mount point, a mode that keeps the runtime out).
 */
async function tryRmdir(path: string): Promise<"gone" | "not a directory" | "occupied"> {
  try {
    await rmdir(path);
    return "gone";
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return "gone";
    return code === "ENOTDIR" ? "not a directory" : "occupied";
  }
}

/**
 * Opens a directory for emptying, first granting its owner `rwx` when its mode
 * shuts the runtime out. A symlink is never followed: it, like any file, is
 * `"not a directory"`.
 */
function openForRemoval(container: AnchoredDirectory, name: string): AnchoredDirectory | "absent" | "not a directory" {
  try {
    return container.openChild(name);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "absent";
    if (errorCode(error) === "ENOTDIR") return "not a directory";
    if (errorCode(error) !== "EACCES") throw removalFailed(name, error);
  }
  grantOwnerAccess(container.entry(name));
  try {
    return container.openChild(name);
  } catch (error) {
    throw removalFailed(name, error);
  }
}

/** Renames a directory; one the runtime may not write (needed to move it) is given its owner's `rwx` first. */
async function moveDirectory(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
    return;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    if (errorCode(error) !== "EACCES" && errorCode(error) !== "EPERM") throw removalFailed(from, error);
  }
  grantOwnerAccess(from);
  try {
    await rename(from, to);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw removalFailed(from, error);
  }
}

async function unlinkEntry(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw removalFailed(path, error);
  }
}

/** Adds `u+rwx` to a directory, through an `O_PATH` descriptor so that a symlink swapped in is never followed. */
function grantOwnerAccess(path: string): void {
  try {
    withPathDescriptor(path, (stats, handlePath) => {
      if (stats.isDirectory()) chmodSync(handlePath, (stats.mode & 0o7777) | 0o700);
    });
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw removalFailed(path, error);
  }
}

function removalFailed(path: string, cause: unknown): TreeRemovalError {
  const code = errorCode(cause);
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new TreeRemovalError(`could not remove ${path}: ${reason}`, { cause, ...(code ? { code } : {}) });
}
