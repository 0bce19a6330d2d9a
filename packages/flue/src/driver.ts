import type { FileStat, SandboxDriver, ShellResult } from "@flue/runtime";
import {
  type BridgeOptions,
  exitStatus,
  type FileInfo,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
  whenFound,
} from "@sandport/core";
import { type FlueSdk, loadFlue } from "./internal/sdk.js";

const decoder = new TextDecoder();

/**
 * A Flue `SandboxDriver` over one Sandport sandbox. Files and commands go
 * through the port; paths are the workspace's (absolute under it, or
 * relative to it). Options the port cannot honour exactly are refused with
 * Flue's `SandboxOperationUnsupportedError` before anything is changed:
 * `stat`, `readdir`, `exists`, non-recursive `mkdir`, and `rm` without both
 * `recursive` and `force` need the runtime's `stat` / `listDir`; `mkdir` and
 * `rm` need `mkdir` / `remove`. A command finding the sandbox gone rejects
 * with `SandboxDiedError`.
 *
 * Flue's `ShellResult.exitCode` is a number: a killed command (`exitCode:
 * null`) reports 124 when it ran past its time limit, else 137 (core's
 * `exitStatus`, as every bridge maps it).
 */
export class SandportFlueDriver<H extends SandboxHandle = SandboxHandle> implements SandboxDriver {
  /** The runtime the sandbox lives in. */
  readonly runtime: SandboxRuntime<H>;
  /** The sandbox. */
  readonly handle: H;
  readonly #commandTimeoutMs: number | undefined;

  /** `options.commandTimeoutMs` limits the commands Flue runs without a `timeoutMs` of their own. */
  constructor(runtime: SandboxRuntime<H>, handle: H, options: Pick<BridgeOptions<H>, "commandTimeoutMs"> = {}) {
    this.runtime = runtime;
    this.handle = handle;
    this.#commandTimeoutMs = options.commandTimeoutMs;
  }

  /** A file's text (UTF-8; invalid bytes become U+FFFD). */
  async readFile(path: string): Promise<string> {
    return decoder.decode(await this.runtime.readFile(this.handle, path));
  }

  /** A file's bytes. */
  readFileBuffer(path: string): Promise<Uint8Array> {
    return this.runtime.readFile(this.handle, path);
  }

  /** Writes a file, creating its parent directories. */
  writeFile(path: string, content: string | Uint8Array): Promise<void> {
    return this.runtime.writeFiles(this.handle, [{ path, content }]);
  }

  /**
   * One entry's metadata, following symlinks as Flue's `FileStat` asks (its
   * `local()` sandbox is `lstat` then `stat`): a link reports what it points
   * at, with `isSymbolicLink: true`. The port's `stat` reports a link as
   * itself, so a link is followed inside the sandbox with `stat -L`; a
   * dangling link rejects with `NOT_FOUND`, as a missing path does.
   */
  async stat(path: string): Promise<FileStat> {
    const link = await this.#stat(await loadFlue(), "stat", path, []);
    const info = link.kind === "symlink" ? await this.#follow(path) : link;
    return {
      isFile: info.kind === "file",
      isDirectory: info.kind === "directory",
      isSymbolicLink: link.kind === "symlink",
      size: info.size,
      ...(info.modifiedAt === undefined ? {} : { mtime: new Date(info.modifiedAt) }),
    };
  }

  /** The names in a directory. */
  async readdir(path: string): Promise<string[]> {
    const sdk = await loadFlue();
    const listDir = this.#method(sdk, "listDir", "readdir", []);
    return (await listDir.call(this.runtime, this.handle, path)).map((entry) => entry.name);
  }

  /** Whether anything is at `path`, following symlinks (a dangling link does not exist, as with `fs.access`). */
  async exists(path: string): Promise<boolean> {
    const info = await this.#present(await loadFlue(), "exists", path);
    if (info?.kind !== "symlink") return info !== undefined;
    return (await whenFound(this.#follow(path))) !== undefined;
  }

  /**
   * Creates a directory. `recursive` is the port's `mkdir` (parents created,
   * an existing directory accepted); without it the parent must exist and the
   * path must not, checked with `stat` first.
   */
  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    const sdk = await loadFlue();
    const mkdir = this.#method(sdk, "mkdir", "mkdir", options.recursive ? ["recursive"] : []);
    if (!options.recursive) {
      const parent = path.replace(/\/+[^/]+\/*$/, "") || ".";
      const parentLink = await this.#stat(sdk, "mkdir", parent, []);
      // A link to a directory is a parent to make in, as it is for fs.mkdir.
      const parentInfo = parentLink.kind === "symlink" ? await this.#follow(parent) : parentLink;
      if (parentInfo.kind !== "directory") throw notDirectory(this.runtime.provider, parent);
      if (await this.#present(sdk, "mkdir", path)) throw alreadyExists(this.runtime.provider, path);
    }
    await mkdir.call(this.runtime, this.handle, path);
  }

  /**
   * Removes a path. The port's `remove` deletes a file or a whole tree and
   * accepts a missing path, which is exactly `{ recursive: true, force: true }`;
   * otherwise `stat` first refuses a directory without `recursive` and a
   * missing path without `force`.
   */
  async rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    const sdk = await loadFlue();
    const given = Object.entries(options)
      .filter(([, on]) => on)
      .map(([name]) => name);
    const remove = this.#method(sdk, "remove", "rm", given);
    if (!(options.recursive && options.force)) {
      const info = await this.#present(sdk, "rm", path, given);
      if (info === undefined && !options.force) throw noSuchPath(this.runtime.provider, path);
      if (info?.kind === "directory" && !options.recursive) throw isDirectory(this.runtime.provider, path);
    }
    await remove.call(this.runtime, this.handle, path);
  }

  /**
   * Runs `command` with `sh -c`. `timeoutMs` (else the driver's
   * `commandTimeoutMs`) is the port's run budget; a command past it resolves
   * with exit code 124 and the timeout said on stderr. `signal` is passed on:
   * an abort kills the command and rejects (`ABORTED`), which Flue reserves
   * aborts for. A command killed otherwise (the output cap) exits 137.
   */
  async exec(
    command: string,
    options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<ShellResult> {
    const timeoutMs = options.timeoutMs ?? this.#commandTimeoutMs;
    const request = {
      shell: command,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    };
    try {
      const result = await this.runtime.exec(this.handle, request, options.signal ? { signal: options.signal } : {});
      // As Flue's contract asks of an expired command: exit 124, the timeout said on stderr.
      const expired = result.exitCode === null && result.timedOut;
      const limit = timeoutMs === undefined ? "at the runtime's run budget" : `after ${timeoutMs} ms`;
      const stderr = expired ? `${result.stderr}command timed out ${limit}\n` : result.stderr;
      return { stdout: result.stdout, stderr, exitCode: exitStatus(result) };
    } catch (error) {
      // exec never reports a missing program as NOT_FOUND (that exits 127): the sandbox itself is gone.
      if (SandportError.hasCode(error, "NOT_FOUND")) {
        const sdk = await loadFlue();
        throw new sdk.SandboxDiedError({ operation: "exec", reason: "stopped" });
      }
      throw error;
    }
  }

  /**
   * What the symlink at `path` points at, through every link (`stat -L` in
   * the sandbox; the C locale keeps its messages parseable). A target that
   * does not exist rejects with `NOT_FOUND`.
   */
  async #follow(path: string): Promise<Pick<FileInfo, "kind" | "size" | "modifiedAt">> {
    const result = await this.runtime.exec(this.handle, {
      argv: ["stat", "-L", "-c", "%s %Y %F", "--", path],
      env: { LC_ALL: "C" },
    });
    if (result.exitCode !== 0) {
      if (/No such file or directory/.test(result.stderr)) throw noSuchPath(this.runtime.provider, path);
      throw new SandportError({
        code: "UNEXPECTED",
        provider: this.runtime.provider,
        message: `could not follow the symlink ${path}: ${result.stderr.trim() || `stat -L exited ${result.exitCode}`}`,
        details: { exitCode: result.exitCode },
      });
    }
    const [size, seconds, ...type] = result.stdout.trim().split(" ");
    const kind = type.join(" ");
    return {
      kind: kind === "directory" ? "directory" : kind.startsWith("regular") ? "file" : "other",
      size: Number(size),
      modifiedAt: new Date(Number(seconds) * 1000).toISOString(),
    };
  }

  #method<K extends "listDir" | "stat" | "mkdir" | "remove">(
    sdk: FlueSdk,
    method: K,
    operation: string,
    options: readonly string[],
  ): NonNullable<SandboxRuntime<H>[K]> {
    const found = this.runtime[method];
    if (typeof found !== "function")
      throw new sdk.SandboxOperationUnsupportedError({ operation, provider: this.runtime.provider, options });
    return found as NonNullable<SandboxRuntime<H>[K]>;
  }

  #stat(sdk: FlueSdk, operation: string, path: string, options: readonly string[]): Promise<FileInfo> {
    return this.#method(sdk, "stat", operation, options).call(this.runtime, this.handle, path);
  }

  async #present(
    sdk: FlueSdk,
    operation: string,
    path: string,
    options: readonly string[] = [],
  ): Promise<FileInfo | undefined> {
    // Only the stat is in whenFound: a missing method is still Flue's unsupported error.
    const stat = this.#method(sdk, "stat", operation, options);
    return whenFound(stat.call(this.runtime, this.handle, path));
  }
}

function noSuchPath(provider: string, path: string): SandportError {
  return new SandportError({ code: "NOT_FOUND", provider, message: `no such file or directory: ${path}` });
}

function alreadyExists(provider: string, path: string): SandportError {
  return new SandportError({ code: "INVALID_REQUEST", provider, message: `${path} already exists` });
}

function notDirectory(provider: string, path: string): SandportError {
  return new SandportError({ code: "INVALID_REQUEST", provider, message: `${path} is not a directory` });
}

function isDirectory(provider: string, path: string): SandportError {
  return new SandportError({
    code: "INVALID_REQUEST",
    provider,
    message: `${path} is a directory: pass { recursive: true } to remove it`,
  });
}
