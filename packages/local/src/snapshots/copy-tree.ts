import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from "node:fs";
import { chmod, copyFile, lchown, mkdir, readdir, readlink, symlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { type AnchoredDirectory, canAnchor } from "../files/anchored-directory.js";
import { errorCode } from "../files/file-errors.js";
import type { FileOwner } from "../files/workspace-walk.js";

/** Opens a file for copying without following a symlink, and without blocking on a FIFO swapped in. */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** What one copy did. */
export interface CopyReport {
  /** Regular files copied. */
  readonly files: number;
  /** Bytes of those files. */
  readonly bytes: number;
  /**
   * Entries left out, relative to the tree's top: FIFOs, sockets and device
   * files (nothing a copy can carry), and entries that changed type or went
   * away while being copied (a command racing the copy).
   */
  readonly skipped: readonly string[];
}

/** Options of {@link copyTree}. */
export interface CopyOptions {
  /** Who the copies belong to (absent: the runtime's own user). */
  readonly owner?: FileOwner;
  /** Stops the copy between entries; the caller removes what was copied. */
  readonly signal?: AbortSignal;
}

/** One directory still to copy: the held source and the path of its copy. */
interface Pending {
  readonly source: AnchoredDirectory;
  readonly target: string;
  readonly relative: string;
  readonly stats: Stats;
}

/**
 * Copies everything below `source` (a held directory, see
 * `AnchoredDirectory`) into `target`, an existing directory that only the
 * runtime writes (a staging directory), without ever following a symlink in
 * the source: directories are opened through their held parent with
 * `O_NOFOLLOW`, files likewise (and copied through that descriptor), symlinks
 * are recreated with their target text, never resolved. So whatever a command
 * does to the source meanwhile, nothing outside it is read. Regular files are
 * cloned where the file system can (`COPYFILE_FICLONE`: a reflink on btrfs
 * and XFS) and copied otherwise; each keeps its permission bits (never a
 * setuid, setgid or sticky bit) and modification time; hard links become
 * separate files. A directory on another device (a mount point) is an error.
 */
export async function copyTree(
  source: AnchoredDirectory,
  target: string,
  options: CopyOptions = {},
): Promise<CopyReport> {
  const device = source.stat().dev;
  const skipped: string[] = [];
  let files = 0;
  let bytes = 0;
  const finished: Pending[] = [];
  const queue: Pending[] = [{ source, target, relative: "", stats: source.stat() }];
  try {
    while (queue.length > 0) {
      const current = queue.pop() as Pending;
      finished.push(current);
      for (const entry of await readdir(current.source.path, { withFileTypes: true })) {
        options.signal?.throwIfAborted();
        const relative = current.relative === "" ? entry.name : `${current.relative}/${entry.name}`;
        const from = current.source.entry(entry.name);
        const to = join(current.target, entry.name);
        if (entry.isSymbolicLink()) {
          const text = await readlink(from).catch(gone);
          if (text === undefined) skipped.push(relative);
          else await ownLink(to, text, options.owner);
        } else if (entry.isDirectory()) {
          const child = openDirectory(current.source, entry.name);
          if (child === undefined) {
            skipped.push(relative);
            continue;
          }
          const stats = child.stat();
          if (stats.dev !== device) {
            child.close();
            throw new Error(`${relative} is a mount point; a snapshot does not copy what is mounted there`);
          }
          // Writable by the runtime until its entries are in; its own mode is set once they are. One already
          // there (the `.tmp` every new workspace has) is the target's maker's: its entries go into it.
          await mkdir(to, { mode: 0o700 }).catch((error) => {
            if (errorCode(error) !== "EEXIST" || !lstatSync(to).isDirectory()) throw error;
          });
          if (options.owner) await lchown(to, options.owner.uid, options.owner.gid);
          queue.push({ source: child, target: to, relative, stats });
        } else if (entry.isFile()) {
          const size = await copyRegularFile(from, to, options.owner);
          if (size === undefined) skipped.push(relative);
          else {
            files++;
            bytes += size;
          }
        } else {
          skipped.push(relative);
        }
      }
    }
  } finally {
    for (const done of [...finished, ...queue]) {
      if (done.source !== source) done.source.close();
    }
  }
  // Deepest first (each directory was queued after its parent), so that a mode keeping the runtime out
  // is set only once nothing below it is left to do. The top keeps the mode its maker gave it.
  for (const done of finished.slice(1).reverse()) {
    await chmod(done.target, done.stats.mode & 0o777);
    await utimes(done.target, done.stats.atime, done.stats.mtime);
  }
  return { files, bytes, skipped };
}

/** Opens child directory `name` without following a symlink; `undefined` when it is no longer a directory. */
function openDirectory(parent: AnchoredDirectory, name: string): AnchoredDirectory | undefined {
  try {
    return parent.openChild(name);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR" || errorCode(error) === "ELOOP")
      return undefined;
    throw error;
  }
}

/**
 * Copies the regular file at `from` (an anchored entry path) to `to`, through
 * a descriptor opened without following a symlink; its size, or `undefined`
 * when it is no longer a regular file.
 */
async function copyRegularFile(from: string, to: string, owner: FileOwner | undefined): Promise<number | undefined> {
  let descriptor: number;
  try {
    descriptor = openSync(from, FILE_FLAGS);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ELOOP") return undefined;
    throw error;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) return undefined;
    // `/proc/self/fd/<fd>` reopens the very file this descriptor holds, whatever its name now points at
    // (without /proc, the name itself: checked by the open above, but a racing rename could outrun it).
    const source = canAnchor() ? `/proc/self/fd/${descriptor}` : from;
    await copyFile(source, to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    await chmod(to, stats.mode & 0o777);
    if (owner) await lchown(to, owner.uid, owner.gid);
    await utimes(to, stats.atime, stats.mtime);
    return stats.size;
  } finally {
    closeSync(descriptor);
  }
}

/** Creates a symlink with the given target text, owned by `owner`: the text is copied, never resolved. */
async function ownLink(to: string, text: string, owner: FileOwner | undefined): Promise<void> {
  await symlink(text, to);
  if (owner) await lchown(to, owner.uid, owner.gid);
}

/** `undefined` for an entry that went away (or changed type) while being read; anything else rethrown. */
function gone(error: unknown): undefined {
  if (errorCode(error) === "ENOENT" || errorCode(error) === "EINVAL") return undefined;
  throw error;
}
