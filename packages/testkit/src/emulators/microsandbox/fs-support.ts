/**
 * What the filesystem sessions share: agentd's error strings, its
 * `FsEntryInfo` shape, and backend calls that answer in those terms.
 *
 * @module
 */

import { type ExecResult, type FileInfo, SandportError } from "@sandport/core";
import type { MicrosandboxContext, MicrosandboxSandbox } from "./context.js";
import { GuestPathError, toBackendPath, toWorkspaceRelative } from "./paths.js";

/** Per-operation deadline on the backend. */
export const FS_OP_TIMEOUT_MS = 60_000;

/** `std::io::Error` texts agentd puts after the operation name (`"stat: No such file or directory (os error 2)"`). */
export const OS_ERROR = {
  notFound: "No such file or directory (os error 2)",
  exists: "File exists (os error 17)",
  notDirectory: "Not a directory (os error 20)",
  busy: "Device or resource busy (os error 16)",
  isDirectory: "Is a directory (os error 21)",
  invalid: "Invalid argument (os error 22)",
  notEmpty: "Directory not empty (os error 39)",
} as const;

/** A failed filesystem operation; its message is agentd's `FsResponse.error`. */
export class FsFailure extends Error {
  constructor(operation: string, reason: string) {
    super(`${operation}: ${reason}`);
    this.name = "FsFailure";
  }
}

/** agentd's `FsEntryInfo`: times in Unix seconds, `mode` with the file-type bits. */
export interface FsEntryInfo {
  path: string;
  kind: "file" | "dir" | "symlink" | "other";
  size: number;
  mode: number;
  modified: number | null;
  uid: number;
  gid: number;
  atime: number | null;
  mtime: number | null;
}

const TYPE_BITS: Readonly<Record<FileInfo["kind"], number>> = {
  file: 0o100000,
  directory: 0o040000,
  symlink: 0o120000,
  other: 0,
};

/** The entry info agentd would report for a backend entry at `guestPath`. Commands run as root (uid 0). */
export function entryInfo(guestPath: string, info: FileInfo): FsEntryInfo {
  const seconds = info.modifiedAt === undefined ? null : Math.floor(Date.parse(info.modifiedAt) / 1000);
  const permissions = info.mode ?? (info.kind === "directory" ? 0o755 : 0o644);
  return {
    path: guestPath,
    kind: info.kind === "directory" ? "dir" : info.kind,
    size: info.size,
    mode: TYPE_BITS[info.kind] | (permissions & 0o7777),
    modified: seconds,
    uid: 0,
    gid: 0,
    atime: seconds,
    mtime: seconds,
  };
}

/** The workspace-relative path of a request's guest path, or an agentd-style failure. */
export function relativePath(operation: string, path: unknown): string {
  if (typeof path !== "string") throw new FsFailure(operation, OS_ERROR.invalid);
  try {
    return toWorkspaceRelative(path);
  } catch (error) {
    if (error instanceof GuestPathError) throw new FsFailure(operation, OS_ERROR.invalid);
    throw error;
  }
}

/** Backend calls for one sandbox, failing with agentd's messages. */
export class SandboxFiles {
  readonly #context: MicrosandboxContext;
  readonly #sandbox: MicrosandboxSandbox;

  constructor(context: MicrosandboxContext, sandbox: MicrosandboxSandbox) {
    this.#context = context;
    this.#sandbox = sandbox;
  }

  #path(relative: string): string {
    return toBackendPath(this.#context.backend, relative);
  }

  #op() {
    return { timeoutMs: FS_OP_TIMEOUT_MS };
  }

  /** The entry at `relative`, or `undefined` when there is none. */
  async stat(relative: string): Promise<FileInfo | undefined> {
    const backend = this.#context.backend;
    if (!backend.stat) throw new FsFailure("stat", "the emulator's backend runtime has no stat");
    try {
      return await backend.stat(this.#sandbox.data.handle, this.#path(relative), this.#op());
    } catch (error) {
      if (SandportError.hasCode(error, "NOT_FOUND")) return undefined;
      throw wrap("stat", error);
    }
  }

  /** The entries of a directory, sorted by name. */
  async list(relative: string): Promise<FileInfo[]> {
    const backend = this.#context.backend;
    if (!backend.listDir) throw new FsFailure("readdir", "the emulator's backend runtime has no listDir");
    try {
      const entries = await backend.listDir(this.#sandbox.data.handle, this.#path(relative), this.#op());
      return entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    } catch (error) {
      throw wrap("readdir", error);
    }
  }

  async read(relative: string): Promise<Buffer> {
    try {
      const bytes = await this.#context.backend.readFile(this.#sandbox.data.handle, this.#path(relative), this.#op());
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      throw wrap("read", error);
    }
  }

  async write(relative: string, content: Uint8Array, mode: number | undefined): Promise<void> {
    try {
      await this.#context.backend.writeFiles(
        this.#sandbox.data.handle,
        [{ path: relative, content, ...(mode === undefined ? {} : { mode: mode & 0o7777 }) }],
        this.#op(),
      );
    } catch (error) {
      throw wrap("write", error);
    }
  }

  async mkdir(relative: string): Promise<void> {
    const backend = this.#context.backend;
    if (backend.mkdir) {
      try {
        await backend.mkdir(this.#sandbox.data.handle, this.#path(relative), this.#op());
      } catch (error) {
        throw wrap("mkdir", error);
      }
    } else {
      await this.run("mkdir", ["mkdir", "-p", "--", this.#path(relative)]);
    }
  }

  async remove(relative: string): Promise<void> {
    const backend = this.#context.backend;
    if (backend.remove) {
      try {
        await backend.remove(this.#sandbox.data.handle, this.#path(relative), this.#op());
      } catch (error) {
        throw wrap("remove", error);
      }
    } else {
      await this.run("remove", ["rm", "-rf", "--", this.#path(relative)]);
    }
  }

  /** Run a helper command from the workspace root; a non-zero exit fails `operation` with its stderr. */
  async run(operation: string, argv: string[]): Promise<void> {
    let result: ExecResult;
    try {
      result = await this.#context.backend.exec(
        this.#sandbox.data.handle,
        { argv, timeoutMs: FS_OP_TIMEOUT_MS },
        this.#op(),
      );
    } catch (error) {
      throw wrap(operation, error);
    }
    if (result.exitCode !== 0) {
      throw new FsFailure(operation, result.stderr.trim() || `${argv[0]} exited with ${result.exitCode}`);
    }
  }
}

/** A listed entry's path as agentd reports it: the directory path as the client sent it, joined with the name. */
export function childPath(directory: string, name: string): string {
  return directory.endsWith("/") ? `${directory}${name}` : `${directory}/${name}`;
}

function wrap(operation: string, error: unknown): FsFailure {
  if (error instanceof FsFailure) return error;
  if (SandportError.hasCode(error, "NOT_FOUND")) return new FsFailure(operation, OS_ERROR.notFound);
  if (SandportError.hasCode(error, "INVALID_REQUEST")) return new FsFailure(operation, OS_ERROR.invalid);
  return new FsFailure(operation, error instanceof Error ? error.message : String(error));
}
