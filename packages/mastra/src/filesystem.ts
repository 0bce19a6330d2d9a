import { posix } from "node:path";
import type {
  CopyOptions,
  FileContent,
  FileEntry,
  FileStat,
  ListOptions,
  ProviderStatus,
  ReadOptions,
  RemoveOptions,
  WorkspaceFilesystem,
  WriteOptions,
} from "@mastra/core/workspace";
import { checkBridgeOptions, type FileInfo, type SandboxHandle, SandportError, whenFound } from "@sandport/core";
import { type MastraPathError, outsideHint, toMastraError } from "./filesystem-errors.js";
import { MASTRA_FILESYSTEM_OPTION_KEYS, type MastraFilesystemOptions } from "./filesystem-options.js";
import { loadMastra } from "./internal/sdk.js";

/**
 * A Mastra `WorkspaceFilesystem` over a Sandport sandbox's files. Paths are
 * the sandbox's own: absolute under the runtime's `workspaceRoot`, or relative
 * to it, so the workspace's file tools and its sandbox's commands name a file
 * alike; an absolute path is taken as it is, as Mastra's contained
 * `LocalFilesystem` takes it. Failures are Mastra's errors (`FileNotFoundError`,
 * `IsDirectoryError`, ...), as its own `LocalFilesystem` throws them: a path
 * the port refuses (outside the workspace, directly or through a symlink) is
 * `PermissionError`, the port's `SandportError` its `cause`, worded as
 * `LocalFilesystem` words it (an absolute `/notes/a.md` outside is told the
 * relative `notes/a.md` when `notes` is in the workspace); with `readOnly`
 * every write is `WorkspaceReadOnlyError` before anything is sent; listing, stat, `mkdir` and removal need the port's
 * `listDir`, `stat`, `mkdir` and `remove` (else Mastra's
 * `SandboxUnsupportedFeatureError`). Moving and copying a directory run `mv`
 * and `cp -R` in the sandbox; `appendFile` reads then writes (not atomic).
 * No I/O until a method is called.
 */
export function createMastraFilesystem<H extends SandboxHandle>(
  options: MastraFilesystemOptions<H>,
): WorkspaceFilesystem {
  checkBridgeOptions(options, MASTRA_FILESYSTEM_OPTION_KEYS, "createMastraFilesystem options");
  const { runtime } = options;
  const root = runtime.workspaceRoot;
  const handle = async (): Promise<H> =>
    typeof options.handle === "function" ? (options.handle as () => Promise<H>)() : options.handle;
  const resolve = (path: string) => posix.resolve(root, path);

  /** The port method, or Mastra's unsupported error. */
  async function needs<K extends "listDir" | "stat" | "mkdir" | "remove">(method: K) {
    const found = runtime[method];
    if (found) return found.bind(runtime) as NonNullable<(typeof runtime)[K]>;
    const { SandboxUnsupportedFeatureError } = await loadMastra();
    throw new SandboxUnsupportedFeatureError(`the ${runtime.provider} runtime has no ${method}`, { feature: method });
  }
  const errors = async () => loadMastra();
  const readOnly = options.readOnly ?? false;
  /** Refuses a write on a read-only filesystem before anything is sent, as Mastra's `LocalFilesystem` does. */
  const writable = async (operation: string) => {
    if (readOnly) throw new (await errors()).WorkspaceReadOnlyError(operation);
  };
  /** Whether the workspace has an entry named `segment` at its top (for `outsideHint`); `false` without the port's stat. */
  const topLevel = async (segment: string) =>
    runtime.stat !== undefined &&
    (await whenFound(runtime.stat(await handle(), posix.join(root, segment)))) !== undefined;
  /** A port failure about `path` as Mastra's error (see `toMastraError`), a refusal worded as `LocalFilesystem` words it. */
  const mastraError = async (error: unknown, path: string, NotFound?: MastraPathError) => {
    const refused = SandportError.hasCode(error, "INVALID_REQUEST");
    return toMastraError(
      await errors(),
      error,
      path,
      NotFound,
      refused ? await outsideHint(path, root, topLevel) : undefined,
    );
  };
  /** One port call about `path`: a refusal becomes Mastra's error for it (see `toMastraError`). */
  const about = async <T>(path: string, call: () => Promise<T>, NotFound?: MastraPathError): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw await mastraError(error, path, NotFound);
    }
  };
  const lookup = async (path: string): Promise<FileInfo | undefined> => {
    const stat = await needs("stat");
    return about(path, async () => whenFound(stat(await handle(), resolve(path))));
  };
  /** What is at `path`; when nothing is, `undefined` under `force`, else Mastra's not-found error. */
  const present = async (path: string, remove: RemoveOptions | undefined, NotFound: new (path: string) => Error) => {
    const info = await lookup(path);
    if (!info && !remove?.force) throw new NotFound(path);
    return info;
  };

  const readBytes = async (path: string): Promise<Uint8Array> => {
    try {
      return await runtime.readFile(await handle(), resolve(path));
    } catch (error) {
      const mastra = await errors();
      if (!SandportError.hasCode(error, "NOT_FOUND") && runtime.stat && (await lookup(path))?.kind === "directory")
        throw new mastra.IsDirectoryError(path);
      throw await mastraError(error, path);
    }
  };
  const removePath = async (path: string) => {
    const removeAt = await needs("remove");
    await about(path, async () => removeAt(await handle(), resolve(path)));
  };
  const writeBytes = async (path: string, content: FileContent) => {
    await about(path, async () => runtime.writeFiles(await handle(), [{ path: resolve(path), content }]));
  };
  const run = async (argv: string[]) => {
    const result = await runtime.exec(await handle(), { argv });
    if (result.exitCode !== 0) {
      throw new SandportError({
        code: "UNEXPECTED",
        provider: runtime.provider,
        message: `${argv[0]} failed: ${result.stderr.trim()}`,
      });
    }
  };

  const filesystem: WorkspaceFilesystem & { status: ProviderStatus } = {
    id: options.id ?? `sandport-fs-${runtime.provider}`,
    name: "SandportFilesystem",
    provider: `sandport-${runtime.provider}`,
    readOnly,
    status: "ready",
    getInstructions: () =>
      `Files of a Sandport ${runtime.provider} sandbox. Paths are the sandbox's: under ${root}, or relative to it.`,

    async readFile(path: string, read?: ReadOptions) {
      const bytes = Buffer.from(await readBytes(path));
      return read?.encoding ? bytes.toString(read.encoding) : bytes;
    },

    async writeFile(path: string, content: FileContent, write?: WriteOptions) {
      await writable("writeFile");
      const mastra = await errors();
      const checked = write?.overwrite === false || write?.expectedMtime !== undefined || write?.recursive === false;
      // Without the port's stat, a plain write still works; only the options that need a look first are refused.
      const existing = runtime.stat || checked ? await lookup(path) : undefined;
      if (existing?.kind === "directory") throw new mastra.IsDirectoryError(path);
      if (existing && write?.overwrite === false) throw new mastra.FileExistsError(path);
      if (existing && write?.expectedMtime && existing.modifiedAt !== undefined) {
        const actual = new Date(existing.modifiedAt);
        if (actual.getTime() !== write.expectedMtime.getTime())
          throw new mastra.StaleFileError(path, write.expectedMtime, actual);
      }
      if (write?.recursive === false && (await lookup(posix.dirname(resolve(path))))?.kind !== "directory") {
        throw new mastra.DirectoryNotFoundError(posix.dirname(path));
      }
      await writeBytes(path, content);
    },

    async appendFile(path: string, content: FileContent) {
      await writable("appendFile");
      const before =
        (await about(path, async () => whenFound(runtime.readFile(await handle(), resolve(path))))) ?? new Uint8Array();
      const added = typeof content === "string" ? Buffer.from(content) : content;
      await writeBytes(path, Buffer.concat([before, added]));
    },

    async deleteFile(path: string, remove?: RemoveOptions) {
      await writable("deleteFile");
      const mastra = await errors();
      const info = await present(path, remove, mastra.FileNotFoundError);
      if (!info) return;
      if (info.kind === "directory") throw new mastra.IsDirectoryError(path);
      await removePath(path);
    },

    async copyFile(source: string, destination: string, copy?: CopyOptions) {
      await writable("copyFile");
      await transfer(source, destination, copy, false);
    },

    async moveFile(source: string, destination: string, copy?: CopyOptions) {
      await writable("moveFile");
      await transfer(source, destination, copy, true);
    },

    async mkdir(path: string, mkdir?: { recursive?: boolean }) {
      await writable("mkdir");
      const mastra = await errors();
      const existing = await lookup(path);
      if (existing?.kind === "directory") return;
      if (existing) throw new mastra.FileExistsError(path);
      if (mkdir?.recursive === false && (await lookup(posix.dirname(resolve(path))))?.kind !== "directory") {
        throw new mastra.DirectoryNotFoundError(posix.dirname(path));
      }
      const mkdirAt = await needs("mkdir");
      await about(path, async () => mkdirAt(await handle(), resolve(path)));
    },

    async rmdir(path: string, remove?: RemoveOptions) {
      await writable("rmdir");
      const mastra = await errors();
      const info = await present(path, remove, mastra.DirectoryNotFoundError);
      if (!info) return;
      if (info.kind !== "directory") throw new mastra.NotDirectoryError(path);
      const listDir = await needs("listDir");
      if (!remove?.recursive && (await about(path, async () => listDir(await handle(), resolve(path)))).length > 0) {
        throw new mastra.DirectoryNotEmptyError(path);
      }
      await removePath(path);
    },

    async readdir(path: string, list?: ListOptions) {
      return listEntries(path, list, list?.maxDepth ?? 100);
    },

    async exists(path: string) {
      return (await lookup(path)) !== undefined;
    },

    async stat(path: string): Promise<FileStat> {
      const info = await lookup(path);
      if (!info) throw new (await errors()).FileNotFoundError(path);
      const modifiedAt = info.modifiedAt === undefined ? new Date(0) : new Date(info.modifiedAt);
      return {
        name: info.name,
        path: resolve(path),
        type: info.kind === "directory" ? "directory" : "file",
        size: info.kind === "directory" ? 0 : info.size,
        // The port reports no creation time: the modification time stands in.
        createdAt: modifiedAt,
        modifiedAt,
      };
    },
  };

  async function listEntries(path: string, list: ListOptions | undefined, depth: number): Promise<FileEntry[]> {
    const mastra = await errors();
    const listDir = await needs("listDir");
    let entries: FileInfo[];
    try {
      entries = await listDir(await handle(), resolve(path));
    } catch (error) {
      if (SandportError.hasCode(error, "NOT_FOUND"))
        throw await mastraError(error, path, mastra.DirectoryNotFoundError);
      // A file in the way; a link the port would not follow leads outside the workspace (PermissionError).
      const info = await lookup(path);
      if (info !== undefined && info.kind !== "symlink") throw new mastra.NotDirectoryError(path);
      throw await mastraError(error, path, mastra.DirectoryNotFoundError);
    }
    const extensions = list?.extension === undefined ? undefined : [list.extension].flat();
    const result: FileEntry[] = [];
    for (const entry of entries) {
      const type = entry.kind === "directory" ? "directory" : "file";
      const extension = posix.extname(entry.name);
      if (
        type === "file" &&
        extensions &&
        !extensions.some((wanted) => wanted === extension || wanted === extension.slice(1))
      )
        continue;
      result.push({
        name: entry.name,
        type,
        ...(type === "file" && entry.kind !== "symlink" ? { size: entry.size } : {}),
        // Links are reported as themselves (the port never follows them), as files.
        ...(entry.kind === "symlink" ? { isSymlink: true } : {}),
      });
      if (list?.recursive && type === "directory" && depth > 0) {
        const nested = await listEntries(posix.join(path, entry.name), list, depth - 1);
        result.push(...nested.map((child) => ({ ...child, name: `${entry.name}/${child.name}` })));
      }
    }
    return result;
  }

  async function transfer(source: string, destination: string, copy: CopyOptions | undefined, move: boolean) {
    const mastra = await errors();
    const info = await lookup(source);
    if (!info) throw new mastra.FileNotFoundError(source);
    if ((await lookup(destination)) && copy?.overwrite === false) throw new mastra.FileExistsError(destination);
    if (info.kind === "directory") {
      if (!move && !copy?.recursive) throw new mastra.IsDirectoryError(source);
      await run(
        move
          ? ["mv", "-f", "--", resolve(source), resolve(destination)]
          : ["cp", "-R", "--", resolve(source), resolve(destination)],
      );
      return;
    }
    await writeBytes(destination, await readBytes(source));
    if (move) await removePath(source);
  }

  return filesystem;
}
