import { constants, existsSync, lstatSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readdir, realpath, rm, unlink } from "node:fs/promises";
import { basename, join, sep } from "node:path";
import { type FileInfo, invalidRequest, SandportError, type ValidatedFile } from "@sandport/core";
import { LOCAL_PROVIDER } from "./options.js";

/** A directory of the workspace, located on the host. */
interface Directory {
  /** Host path (symlinks resolved where the directory exists). */
  readonly host: string;
  /** Segments below `host` that do not exist yet (empty when the directory exists). */
  readonly missing: readonly string[];
}

const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
// O_NONBLOCK: opening a FIFO planted in the workspace must not hang; it is refused as "not a regular file".
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CONCURRENCY = 16;
let procFd: boolean | undefined;
/** Whether open files can be traced back to their real path (Linux). Looked up on first use. */
function canTraceFiles(): boolean {
  procFd ??= existsSync("/proc/self/fd");
  return procFd;
}

/**
 * File operations straight on the host directory behind a sandbox's workspace.
 *
 * Every path is confined before use: a parent directory must resolve (through
 * any symlinks) to a place inside the workspace, and a final symlink is never
 * followed (reads, writes, listing and mkdir refuse it; `stat` reports it and
 * `remove` deletes the link itself). Refusals are `INVALID_REQUEST` and happen
 * before anything is written; opens use `O_NOFOLLOW`; missing directories are
 * created one level at a time from an existing one, so a vanished workspace is
 * never recreated. A command running in the sandbox at the same moment could
 * still swap a checked directory for a symlink between check and use; the
 * checks guard against a workspace prepared in advance, not against that race.
 */
export class WorkspaceFiles {
  readonly #directory: string;
  #root: Promise<string> | undefined;

  /** @param directory host directory of the workspace */
  constructor(directory: string) {
    this.#directory = directory;
  }

  /** Writes files after checking all of them; parents are created, `mode` is set exactly. */
  async write(files: readonly ValidatedFile[], signal?: AbortSignal): Promise<void> {
    const paths = new Set(files.map((file) => file.path));
    for (const file of files) {
      const segments = file.path.split("/");
      for (let end = 1; end < segments.length; end++) {
        const parent = segments.slice(0, end).join("/");
        if (paths.has(parent))
          throw refuse(file.path, `needs ${parent} to be a directory, but it is also written as a file`);
      }
    }
    const directories = new Map<string, Promise<Directory>>();
    const directoryOf = (path: string) => {
      const parent = parentOf(path);
      let found = directories.get(parent);
      if (!found) {
        found = this.#locateDirectory(parent, path);
        directories.set(parent, found);
      }
      return found;
    };
    // Check everything first: nothing is written unless every file may be.
    const targets = await inBatches(files, async (file) => {
      const directory = await directoryOf(file.path);
      const host = join(directory.host, ...directory.missing, basename(file.path));
      const stats = directory.missing.length === 0 ? await lstatOrUndefined(host, file.path) : undefined;
      if (stats?.isSymbolicLink()) throw refuse(file.path, "is a symlink; writing through it is refused");
      if (stats && !stats.isFile()) throw refuse(file.path, "is not a regular file");
      return { file, host, existingMode: stats ? stats.mode & 0o7777 : undefined };
    });
    for (const directory of new Set(await Promise.all(directories.values()))) await createMissing(directory);
    const umask = currentUmask();
    await inBatches(targets, async ({ file, host, existingMode }) => {
      signal?.throwIfAborted();
      const handle = await open(host, WRITE_FLAGS, file.mode).catch((error) => rethrow(error, file.path));
      try {
        await handle.writeFile(file.content);
        // `open` applies the umask to a new file and leaves an existing one's mode alone.
        const modeNow = existingMode ?? (umask === undefined ? undefined : file.mode & ~umask);
        if (modeNow !== file.mode) await handle.chmod(file.mode);
      } finally {
        await handle.close();
      }
    });
  }

  /**
   * Reads a regular file's bytes (as a plain `Uint8Array`). Where `/proc/self/fd`
   * exists the check happens after opening, on the file actually opened (no
   * race, and one system call instead of a walk); elsewhere the parent is
   * checked first.
   */
  async read(path: string): Promise<Uint8Array> {
    const root = await this.#realRoot();
    const traced = canTraceFiles();
    let host: string;
    if (traced) {
      host = join(root, path);
    } else {
      const directory = await this.#locateDirectory(parentOf(path), path);
      if (directory.missing.length > 0) throw missing(path);
      host = join(directory.host, basename(path));
    }
    const handle: FileHandle = await open(host, READ_FLAGS).catch(async (error) => {
      // Failed to open: say why as the checked walk would (an escaping symlink beats "missing").
      if (traced) await this.#locateDirectory(parentOf(path), path);
      return rethrow(error, path, "is a symlink; reading through it is refused");
    });
    try {
      if (traced && !isInside(readlinkSync(`/proc/self/fd/${handle.fd}`), root)) {
        throw refuse(path, "leads outside the workspace through a symlink");
      }
      // A directory fails with EISDIR, a FIFO (opened non-blocking) with EAGAIN: both refused.
      const bytes = await handle.readFile().catch((error: NodeJS.ErrnoException) => {
        if (error.code === "EAGAIN") throw refuse(path, "is not a regular file");
        return rethrow(error, path);
      });
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } finally {
      await handle.close();
    }
  }

  /** Entries of a directory, sorted by name; symlinks reported as themselves. */
  async list(path: string): Promise<FileInfo[]> {
    const host = await this.directory(path);
    const names = (await readdir(host).catch((error) => rethrow(error, path))).sort();
    const infos = await inBatches(names, async (name) => {
      const entry = await lstat(join(host, name)).catch(() => undefined);
      return entry && toInfo(path === "" ? name : `${path}/${name}`, entry);
    });
    return infos.filter((info) => info !== undefined);
  }

  /** One entry's metadata, without following a final symlink. */
  async stat(path: string): Promise<FileInfo> {
    const stats = path === "" ? await lstatOrUndefined(await this.#realRoot(), path) : (await this.#entry(path)).stats;
    if (!stats) throw missing(path);
    return toInfo(path, stats);
  }

  /** Creates a directory and its parents; an existing directory is fine. */
  async mkdir(path: string): Promise<void> {
    if (path === "") return void (await this.#realRoot());
    const { stats, directory } = await this.#entry(path);
    if (stats?.isSymbolicLink()) throw refuse(path, "is a symlink");
    if (stats && !stats.isDirectory()) throw refuse(path, "exists and is not a directory");
    if (!stats) await createMissing({ host: directory.host, missing: [...directory.missing, basename(path)] });
  }

  /** Removes a file, a symlink (not its target) or a directory tree; an absent path is fine. */
  async remove(path: string): Promise<void> {
    if (path === "") throw refuse(path, "is the workspace itself");
    const { stats, host } = await this.#entry(path);
    if (!stats) return;
    if (stats.isDirectory()) await rm(host, { recursive: true, force: true });
    else await unlink(host).catch(ignoreMissing);
  }

  /**
   * Host path of an existing directory of the workspace (`""` = the root).
   * `verifyRoot` re-checks that the workspace itself still exists.
   */
  async directory(path: string, verifyRoot = false): Promise<string> {
    if (path === "") {
      const root = await this.#realRoot();
      // Synchronous: one stat of a local directory costs less than a thread-pool round trip, on every exec.
      if (verifyRoot && !lstatSync(root, { throwIfNoEntry: false })) throw workspaceGone();
      return root;
    }
    const { stats, host } = await this.#entry(path);
    if (!stats) throw missing(path);
    if (stats.isSymbolicLink()) throw refuse(path, "is a symlink");
    if (!stats.isDirectory()) throw refuse(path, "is not a directory");
    return host;
  }

  /** The final component of `path`, not followed, with its confined parent. */
  async #entry(path: string): Promise<{ stats: Stats | undefined; host: string; directory: Directory }> {
    const directory = await this.#locateDirectory(parentOf(path), path);
    const host = join(directory.host, ...directory.missing, basename(path));
    const stats = directory.missing.length === 0 ? await lstatOrUndefined(host, path) : undefined;
    return { stats, host, directory };
  }

  #realRoot(): Promise<string> {
    this.#root ??= realpath(this.#directory).catch((error: NodeJS.ErrnoException) => {
      this.#root = undefined;
      throw error.code === "ENOENT" ? workspaceGone() : error;
    });
    return this.#root;
  }

  /**
   * Resolves a workspace directory (`""` = root) to a host directory inside the
   * workspace. The common case costs one `realpath`; only when part of it is
   * missing is it walked component by component, to find where it stops.
   */
  async #locateDirectory(relative: string, requested: string): Promise<Directory> {
    const root = await this.#realRoot();
    if (relative === "") return { host: root, missing: [] };
    try {
      const real = await realpath(join(root, relative));
      if (!isInside(real, root)) throw refuse(requested, "leads outside the workspace through a symlink");
      return { host: real, missing: [] };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") rethrow(error, requested);
    }
    const segments = relative.split("/");
    let current = root;
    for (const [index, segment] of segments.entries()) {
      const next = join(current, segment);
      const stats = await lstatOrUndefined(next, requested);
      if (!stats) return { host: current, missing: segments.slice(index) };
      if (stats.isSymbolicLink()) {
        const target = await realpath(next).catch(() => undefined);
        if (!target || !isInside(target, root)) {
          const link = segments.slice(0, index + 1).join("/");
          throw refuse(requested, `passes through symlink ${link}, which leads outside the workspace`);
        }
        current = target;
      } else if (!stats.isDirectory()) {
        throw refuse(requested, "has a parent that is not a directory");
      } else {
        current = next;
      }
    }
    return { host: current, missing: [] };
  }
}

/**
 * This process's umask, read from `/proc/self/status` (Linux 4.7+), or
 * `undefined` when unknown. `process.umask()` is not used: reading it briefly
 * sets the umask to 0, racing with files other code creates meanwhile.
 */
function currentUmask(): number | undefined {
  try {
    const match = /^Umask:\s*([0-7]+)$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return match ? Number.parseInt(match[1] as string, 8) : undefined;
  } catch {
    return undefined;
  }
}

/** Creates missing directories one level at a time below an existing one (never recreating a vanished root). */
async function createMissing(directory: Directory): Promise<void> {
  let current = directory.host;
  for (const segment of directory.missing) {
    current = join(current, segment);
    await mkdir(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return;
      if (error.code === "ENOENT") throw workspaceGone();
      throw error;
    });
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

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root + sep);
}

async function lstatOrUndefined(host: string, requested: string): Promise<Stats | undefined> {
  try {
    return await lstat(host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return rethrow(error, requested);
  }
}

/** Turns a file system error about `path` into the matching `SandportError`. */
function rethrow(error: unknown, path: string, symlinkWhy = "is a symlink"): never {
  if (SandportError.isInstance(error)) throw error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") throw missing(path);
  if (code === "ELOOP") throw refuse(path, symlinkWhy);
  if (code === "ENOTDIR") throw refuse(path, "has a parent that is not a directory");
  if (code === "EISDIR") throw refuse(path, "is a directory");
  throw error;
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

function refuse(path: string, why: string): SandportError {
  return invalidRequest(`path ${JSON.stringify(path)} ${why}`, { path }, LOCAL_PROVIDER);
}

function missing(path: string): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: LOCAL_PROVIDER,
    message: `${JSON.stringify(path)} does not exist in the workspace`,
    details: { path },
  });
}

function workspaceGone(): SandportError {
  return new SandportError({ code: "NOT_FOUND", provider: LOCAL_PROVIDER, message: "the sandbox's workspace is gone" });
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}
