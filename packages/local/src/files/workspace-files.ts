import { constants, type Dirent, fstatSync, lstatSync, mkdirSync, readdirSync, type Stats, unlinkSync } from "node:fs";
import { type FileHandle, lstat, open, readdir } from "node:fs/promises";
import { basename } from "node:path";
import { type FileInfo, readLimitExceeded, type ValidatedFile } from "@sandport/core";
import { AnchoredDirectory } from "./anchored-directory.js";
import { errorCode, fileError, missingPath, refusePath } from "./file-errors.js";
import { removeDirectoryVia, TreeRemovalError } from "./remove-tree.js";
import { type FileOwner, lookAtEntry, WorkspaceWalker } from "./workspace-walk.js";

// O_NONBLOCK: opening a FIFO planted in the workspace must not hang; the opened file is then refused as not regular.
const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CONCURRENCY = 16;

/** Where a sandbox's files live and who owns what the runtime creates there. */
export interface WorkspaceLocation {
  /** Host directory of the workspace. */
  readonly directory: string;
  /** The workspace's absolute path as commands see it (absolute symlink targets under it stay inside). */
  readonly linkRoot: string;
  /** A private host directory on the same file system, outside the workspace, where removed trees are taken apart. */
  readonly trashDirectory: string;
  /** Owner of files and directories the runtime creates (absent: the runtime's own user). */
  readonly owner?: FileOwner;
}

/**
 * File operations on the host directory behind a sandbox's workspace, safe
 * while commands run in it.
 *
 * Every path is resolved from the held workspace root one component at a
 * time (`WorkspaceWalker`), and the final component is opened, listed,
 * created or removed through its held parent with `O_NOFOLLOW`. A command
 * swapping a directory for a symlink at any moment can therefore make an
 * operation fail, never make it reach outside the workspace. Symlinks among
 * the parents are followed only when their target stays inside; a final
 * symlink is never followed (reads, writes, listing and mkdir refuse it;
 * `stat` reports it and `remove` deletes the link). Refusals are
 * `INVALID_REQUEST`; `writeFiles` checks every file before writing any.
 *
 * Where `/proc/self/fd` is missing (not Linux, so `isolation: "none"` only)
 * the same checks run on host paths and a racing process could outrun them.
 */
export class WorkspaceFiles {
  readonly #location: WorkspaceLocation;
  readonly #walker: WorkspaceWalker;

  constructor(location: WorkspaceLocation) {
    this.#location = location;
    this.#walker = new WorkspaceWalker(location.directory, location.linkRoot, location.owner);
  }

  /** Writes files after checking all of them; parents are created, `mode` is set exactly. */
  async write(files: readonly ValidatedFile[], signal?: AbortSignal): Promise<void> {
    refuseFileDirectoryClashes(files);
    const held: AnchoredDirectory[] = [];
    try {
      // Check everything first: nothing is written unless every file may be.
      const parents = new Map<string, { directory: AnchoredDirectory; missing: readonly string[] }>();
      for (const file of files) {
        const parent = parentOf(file.path);
        if (parents.has(parent)) continue;
        const walked = this.#walker.walk(segmentsOf(parent), file.path);
        held.push(walked.directory);
        parents.set(parent, walked);
      }
      const listings = listingsFor(files, parents);
      for (const file of files) {
        const parent = parents.get(parentOf(file.path)) as { directory: AnchoredDirectory; missing: readonly string[] };
        if (parent.missing.length > 0) continue;
        const name = basename(file.path);
        const kind =
          listedKind(listings.get(parentOf(file.path)), name) ?? kindOf(parent.directory.entry(name), file.path);
        if (kind === "symlink") throw refusePath(file.path, "is a symlink; writing through it is refused");
        if (kind === "other") throw refusePath(file.path, "is not a regular file");
      }
      const directories = new Map<string, AnchoredDirectory>();
      for (const [path, parent] of parents) {
        const directory =
          parent.missing.length === 0
            ? parent.directory
            : this.#walker.createBelow(parent.directory, parent.missing, path);
        if (directory !== parent.directory) held.push(directory);
        directories.set(path, directory);
      }
      await inBatches(files, async (file) => {
        signal?.throwIfAborted();
        const directory = directories.get(parentOf(file.path)) as AnchoredDirectory;
        await this.#writeOne(directory.entry(basename(file.path)), file);
      });
    } finally {
      for (const directory of held) directory.close();
    }
  }

  /**
   * Reads a regular file's bytes (as a plain `Uint8Array`). One larger than
   * `maxBytes` is refused (`OUTPUT_LIMIT`) from the opened file's size, before
   * any byte is read; one that grows meanwhile is read up to that size only.
   */
  async read(path: string, maxBytes: number): Promise<Uint8Array> {
    const { handle, size } = await this.openRegular(path);
    try {
      if (size > maxBytes) throw readLimitExceeded("local", path, size, maxBytes);
      return await readBytes(handle, size);
    } finally {
      await handle.close();
    }
  }

  /**
   * Opens a regular file of the workspace for reading, through its held
   * parent with `O_NOFOLLOW` (a final symlink, a directory, a FIFO or a device
   * is refused, a missing file is `NOT_FOUND`), and says its size then. The
   * caller closes the handle; what it reads through it is that file, whatever
   * the path names afterwards.
   */
  async openRegular(path: string): Promise<{ readonly handle: FileHandle; readonly size: number }> {
    const { directory, missing } = this.#walker.walk(segmentsOf(parentOf(path)), path);
    try {
      if (missing.length > 0) throw missingPath(path);
      const handle: FileHandle = await open(directory.entry(basename(path)), READ_FLAGS).catch((error) => {
        throw fileError(error, path, "is a symlink; reading through it is refused");
      });
      try {
        // A directory, a FIFO or a device is refused without reading (a FIFO with no writer would read as empty).
        const stats = fstatSync(handle.fd);
        if (!stats.isFile()) throw refusePath(path, "is not a regular file");
        return { handle, size: stats.size };
      } catch (error) {
        await handle.close();
        throw error;
      }
    } finally {
      directory.close();
    }
  }

  /** Entries of a directory, sorted by name; symlinks reported as themselves. */
  async list(path: string): Promise<FileInfo[]> {
    const directory = this.#openDirectory(path);
    try {
      const names = (await readdir(directory.path).catch((error) => Promise.reject(fileError(error, path)))).sort();
      const infos = await inBatches(names, async (name) => {
        const entry = await lstat(directory.entry(name)).catch(() => undefined);
        return entry && toInfo(path === "" ? name : `${path}/${name}`, entry);
      });
      return infos.filter((info) => info !== undefined);
    } finally {
      directory.close();
    }
  }

  /** One entry's metadata, without following a final symlink. */
  async stat(path: string): Promise<FileInfo> {
    if (path === "") {
      const root = this.#walker.openRoot();
      try {
        return toInfo(path, root.stat());
      } finally {
        root.close();
      }
    }
    const { directory, missing } = this.#walker.walk(segmentsOf(parentOf(path)), path);
    try {
      const stats = missing.length > 0 ? undefined : lstatOrUndefined(directory.entry(basename(path)), path);
      if (!stats) throw missingPath(path);
      return toInfo(path, stats);
    } finally {
      directory.close();
    }
  }

  /** Creates a directory and its parents; an existing directory is fine, a final symlink is refused. */
  async mkdir(path: string): Promise<void> {
    if (path === "") return this.#walker.openRoot().close();
    const name = basename(path);
    const { directory, missing } = this.#walker.walk(segmentsOf(parentOf(path)), path, true);
    try {
      const stats = missing.length > 0 ? undefined : lstatOrUndefined(directory.entry(name), path);
      if (stats?.isSymbolicLink()) throw refusePath(path, "is a symlink");
      if (stats && !stats.isDirectory()) throw refusePath(path, "exists and is not a directory");
      if (!stats) this.#walker.createBelow(directory, [name], path).close();
    } finally {
      directory.close();
    }
  }

  /** Removes a file, a symlink (not its target) or a directory tree; an absent path is fine. */
  async remove(path: string): Promise<void> {
    if (path === "") throw refusePath(path, "is the workspace itself");
    const { directory, missing } = this.#walker.walk(segmentsOf(parentOf(path)), path);
    try {
      if (missing.length > 0) return;
      const name = basename(path);
      const stats = lstatOrUndefined(directory.entry(name), path);
      if (!stats) return;
      if (!stats.isDirectory()) {
        try {
          unlinkSync(directory.entry(name));
        } catch (error) {
          if (errorCode(error) !== "ENOENT") throw fileError(error, path);
        }
        return;
      }
      const trash = this.#openTrash();
      try {
        await removeDirectoryVia(directory, name, trash);
      } catch (error) {
        if (error instanceof TreeRemovalError) throw refusePath(path, `could not be removed: ${error.message}`);
        throw error;
      } finally {
        trash.close();
      }
    } finally {
      directory.close();
    }
  }

  /**
   * Checks that `path` (`""` = the root) is an existing directory of the
   * workspace, not a symlink. `what` names it in errors (e.g. "working directory").
   */
  checkDirectory(path: string, what?: string): void {
    this.#openDirectory(path, what).close();
  }

  /** Opens an existing workspace directory; a final symlink or a non-directory is refused. */
  #openDirectory(path: string, what?: string): AnchoredDirectory {
    if (path === "") return this.#walker.openRoot();
    const { directory, missing } = this.#walker.walk(segmentsOf(parentOf(path)), path);
    try {
      if (missing.length > 0) throw missingPath(path, what);
      const name = basename(path);
      for (let attempt = 0; ; attempt++) {
        try {
          return directory.openChild(name);
        } catch (error) {
          if (errorCode(error) === "ENOENT") throw missingPath(path, what);
          if (errorCode(error) !== "ENOTDIR") throw fileError(error, path);
        }
        const look = lookAtEntry(directory, name);
        if (look.kind === "link") throw refusePath(path, "is a symlink");
        if (look.kind === "other") throw refusePath(path, "is not a directory");
        if (attempt >= 100) throw refusePath(path, "keeps changing while it is opened");
      }
    } finally {
      directory.close();
    }
  }

  async #writeOne(entry: string, file: ValidatedFile): Promise<void> {
    const handle = await open(entry, WRITE_FLAGS, file.mode).catch((error) => {
      throw fileError(error, file.path, "is a symlink; writing through it is refused");
    });
    try {
      const stats = fstatSync(handle.fd);
      if (!stats.isFile()) throw refusePath(file.path, "is not a regular file");
      const owner = this.#location.owner;
      if (owner && (stats.uid !== owner.uid || stats.gid !== owner.gid)) await handle.chown(owner.uid, owner.gid);
      await handle.writeFile(file.content);
      // `open` applies the umask to a new file and leaves an existing one's mode alone.
      if ((stats.mode & 0o7777) !== file.mode) await handle.chmod(file.mode);
    } finally {
      await handle.close();
    }
  }

  #openTrash(): AnchoredDirectory {
    try {
      mkdirSync(this.#location.trashDirectory, 0o700);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
    return AnchoredDirectory.open(this.#location.trashDirectory);
  }
}

/** Refuses a batch that writes a path both as a file and as the parent directory of another file. */
function refuseFileDirectoryClashes(files: readonly ValidatedFile[]): void {
  const paths = new Set(files.map((file) => file.path));
  for (const file of files) {
    const segments = file.path.split("/");
    for (let end = 1; end < segments.length; end++) {
      const parent = segments.slice(0, end).join("/");
      if (paths.has(parent)) {
        throw refusePath(file.path, `needs ${parent} to be a directory, but it is also written as a file`);
      }
    }
  }
}

/** Maps `items` through `task`, at most {@link CONCURRENCY} at a time, keeping order. */
async function inBatches<T, R>(items: readonly T[], task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return results;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function segmentsOf(path: string): string[] {
  return path === "" ? [] : path.split("/");
}

/** Files written into one existing directory from which on it is listed once rather than `lstat`ed per file. */
const LIST_FROM = 16;

/** What a name is in a directory, as far as `writeFiles` cares. */
type EntryKind = "absent" | "file" | "symlink" | "other";

/** Listings (name to entry) of the existing directories that receive at least {@link LIST_FROM} files. */
function listingsFor(
  files: readonly ValidatedFile[],
  parents: ReadonlyMap<string, { directory: AnchoredDirectory; missing: readonly string[] }>,
): Map<string, Map<string, Dirent>> {
  const counts = new Map<string, number>();
  for (const file of files) counts.set(parentOf(file.path), (counts.get(parentOf(file.path)) ?? 0) + 1);
  const listings = new Map<string, Map<string, Dirent>>();
  for (const [path, parent] of parents) {
    if (parent.missing.length > 0 || (counts.get(path) ?? 0) < LIST_FROM) continue;
    try {
      const entries = readdirSync(parent.directory.path, { withFileTypes: true });
      listings.set(path, new Map(entries.map((entry) => [entry.name, entry])));
    } catch {
      // Unlistable (a command's `chmod -r`): each file is looked at on its own.
    }
  }
  return listings;
}

/** A name's kind from its directory's listing; `undefined` without a listing or where it leaves the type out. */
function listedKind(listing: ReadonlyMap<string, Dirent> | undefined, name: string): EntryKind | undefined {
  if (!listing) return undefined;
  const entry = listing.get(name);
  if (!entry) return "absent";
  if (entry.isFile()) return "file";
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()) {
    return "other";
  }
  return undefined;
}

function kindOf(path: string, requested: string): EntryKind {
  const stats = lstatOrUndefined(path, requested);
  if (!stats) return "absent";
  return stats.isFile() ? "file" : stats.isSymbolicLink() ? "symlink" : "other";
}

function lstatOrUndefined(path: string, requested: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw fileError(error, requested);
  }
}

function toInfo(path: string, stats: Stats): FileInfo {
  const kind = stats.isFile()
    ? "file"
    : stats.isDirectory()
      ? "directory"
      : stats.isSymbolicLink()
        ? "symlink"
        : "other";
  return {
    name: path === "" ? "" : basename(path),
    path,
    kind,
    size: stats.size,
    mode: stats.mode & 0o7777,
    modifiedAt: stats.mtime.toISOString(),
  };
}

/**
 * The first `size` bytes of an open file (fewer if it shrank meanwhile), in a
 * buffer of its own: for a small file, one `read`, where `FileHandle.readFile`
 * would `fstat` again first.
 */
async function readBytes(handle: FileHandle, size: number): Promise<Uint8Array> {
  // Unpooled: the caller may keep `.buffer`, which must hold this file alone.
  const buffer = Buffer.allocUnsafeSlow(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  // Shrunk meanwhile: copy what was read, so that no uninitialised memory stays behind `.buffer`.
  if (filled < size) return new Uint8Array(buffer.subarray(0, filled));
  return new Uint8Array(buffer.buffer, buffer.byteOffset, filled);
}
