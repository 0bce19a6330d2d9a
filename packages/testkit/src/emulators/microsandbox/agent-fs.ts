/**
 * `core.fs.request` sessions: agentd's filesystem operations on guest paths,
 * served by the backend's file methods. Each answers with one terminal
 * `core.fs.response { ok, error, data }`; a failure carries agentd's message
 * (`"stat: No such file or directory (os error 2)"`), which the SDK raises as
 * `SandboxFsOpsError`.
 *
 * Served: `Stat`, `List`, `Mkdir`, `Remove`, `RemoveDir`, `Copy`, `Rename`,
 * `RealPath`, and handle I/O (`OpenFile`, `Read`, `Write`, `CloseHandle`).
 * Not emulated (answered with an error, logged as unknown): `SetStat`,
 * `ReadLink`, `Symlink`, `OpenDir`, `ReadDir`, `FStat`, `FSetStat`.
 *
 * @module
 */

import { FLAG_TERMINAL } from "./agent-codec.js";
import type { AgentConnection } from "./agent-connection.js";
import type { MicrosandboxContext, MicrosandboxSandbox } from "./context.js";
import { FileHandles } from "./fs-handles.js";
import { childPath, entryInfo, FsFailure, OS_ERROR, relativePath, SandboxFiles } from "./fs-support.js";
import { notEmulated } from "./interactive.js";
import { parentOf, toBackendPath, toGuestPath } from "./paths.js";

type FsResponseData = { Stat: unknown } | { List: unknown[] } | { Handle: number } | { Path: string } | null;

/** The filesystem side of one agent connection. */
export class FsSessions {
  readonly #context: MicrosandboxContext;
  readonly #connection: AgentConnection;
  readonly #files: SandboxFiles;
  readonly #handles: FileHandles;

  constructor(context: MicrosandboxContext, sandbox: MicrosandboxSandbox, connection: AgentConnection) {
    this.#context = context;
    this.#connection = connection;
    this.#files = new SandboxFiles(context, sandbox);
    this.#handles = new FileHandles(this.#files, connection);
  }

  /** The operation's name (`"OpenFile"`) and arguments, from `{ op: { OpenFile: {...} } }`. */
  static operationOf(payload: unknown): { name: string; args: Record<string, unknown> } {
    const op = (payload as { op?: unknown } | undefined)?.op;
    const entries = typeof op === "object" && op !== null ? Object.entries(op) : [];
    const [name, args] = entries.length === 1 ? entries[0]! : ["", {}];
    return { name, args: (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown> };
  }

  /** `core.fs.request`. Never rejects: failures become `ok: false` responses. */
  async request(id: number, payload: unknown): Promise<void> {
    const { name, args } = FsSessions.operationOf(payload);
    try {
      if (name === "Write") {
        // Registered before any await, so the data chunks right behind the request find it.
        this.#handles.startWrite(id, args);
        return;
      }
      const data = await this.#perform(id, name, args);
      this.#respond(id, { ok: true, error: null, data });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#respond(id, { ok: false, error: message, data: null });
    }
  }

  /** `core.fs.data` for a write session. */
  data(id: number, payload: unknown): void {
    this.#handles.data(id, payload);
  }

  async #perform(id: number, name: string, args: Record<string, unknown>): Promise<FsResponseData> {
    switch (name) {
      case "Stat": {
        const info = await this.#files.stat(relativePath("stat", args.path));
        if (!info) throw new FsFailure("stat", OS_ERROR.notFound);
        return { Stat: entryInfo(String(args.path), info) };
      }
      case "List":
        return { List: await this.#list(args.path) };
      case "Mkdir":
        await this.#mkdir(args);
        return null;
      case "Remove": {
        const relative = relativePath("remove", args.path);
        const info = await this.#files.stat(relative);
        if (!info) throw new FsFailure("remove", OS_ERROR.notFound);
        if (info.kind === "directory") throw new FsFailure("remove", OS_ERROR.isDirectory);
        await this.#files.remove(relative);
        return null;
      }
      case "RemoveDir":
        await this.#removeDir(args);
        return null;
      case "Copy":
        await this.#copy(args);
        return null;
      case "Rename":
        await this.#rename(args);
        return null;
      case "RealPath": {
        const relative = relativePath("realpath", args.path);
        if (!(await this.#files.stat(relative))) throw new FsFailure("realpath", OS_ERROR.notFound);
        return { Path: toGuestPath(relative) };
      }
      case "OpenFile":
        return await this.#handles.open(args);
      case "Read":
        await this.#handles.read(id, args);
        return null;
      case "CloseHandle":
        this.#handles.close(args);
        return null;
      default:
        notEmulated(this.#context, `core.fs.request ${name || "(no operation)"}`);
        throw new FsFailure(name || "fs", "operation is not emulated");
    }
  }

  async #list(path: unknown): Promise<unknown[]> {
    const relative = relativePath("readdir", path);
    const info = await this.#files.stat(relative);
    if (!info) throw new FsFailure("readdir", `opendir: ${OS_ERROR.notFound}`);
    if (info.kind !== "directory") throw new FsFailure("readdir", `opendir: ${OS_ERROR.notDirectory}`);
    const entries = await this.#files.list(relative);
    return entries.map((entry) => entryInfo(childPath(String(path), entry.name), entry));
  }

  async #mkdir(args: Record<string, unknown>): Promise<void> {
    const relative = relativePath("mkdir", args.path);
    const info = await this.#files.stat(relative);
    if (info && info.kind !== "directory") throw new FsFailure("mkdir", OS_ERROR.exists);
    if (!info) await this.#files.mkdir(relative);
    if (typeof args.mode === "number") {
      const path = toBackendPath(this.#context.backend, relative);
      await this.#files.run("chmod", ["chmod", (args.mode & 0o7777).toString(8), "--", path]);
    }
  }

  async #removeDir(args: Record<string, unknown>): Promise<void> {
    const relative = relativePath("remove_dir", args.path);
    if (relative === "") throw new FsFailure("remove_dir", OS_ERROR.busy);
    const info = await this.#files.stat(relative);
    if (!info) throw new FsFailure("remove_dir", OS_ERROR.notFound);
    if (info.kind !== "directory") throw new FsFailure("remove_dir", OS_ERROR.notDirectory);
    if (args.recursive !== true && (await this.#files.list(relative)).length > 0) {
      throw new FsFailure("remove_dir", OS_ERROR.notEmpty);
    }
    await this.#files.remove(relative);
  }

  async #copy(args: Record<string, unknown>): Promise<void> {
    const source = relativePath("copy", args.src);
    const destination = relativePath("copy", args.dst);
    const info = await this.#files.stat(source);
    if (!info) throw new FsFailure("copy", OS_ERROR.notFound);
    if (info.kind !== "file") {
      throw new FsFailure("copy", "the source path is neither a regular file nor a symlink to a regular file");
    }
    await this.#requireDirectory("copy", parentOf(destination));
    await this.#files.write(destination, await this.#files.read(source), info.mode);
  }

  async #rename(args: Record<string, unknown>): Promise<void> {
    const source = relativePath("rename", args.src);
    const destination = relativePath("rename", args.dst);
    if (source === "" || destination === "") throw new FsFailure("rename", OS_ERROR.busy);
    if (!(await this.#files.stat(source))) throw new FsFailure("rename", OS_ERROR.notFound);
    await this.#requireDirectory("rename", parentOf(destination));
    const backend = this.#context.backend;
    await this.#files.run("rename", [
      "mv",
      "-f",
      "-T",
      "--",
      toBackendPath(backend, source),
      toBackendPath(backend, destination),
    ]);
  }

  async #requireDirectory(operation: string, relative: string): Promise<void> {
    const info = await this.#files.stat(relative);
    if (!info) throw new FsFailure(operation, OS_ERROR.notFound);
    if (info.kind !== "directory") throw new FsFailure(operation, OS_ERROR.notDirectory);
  }

  #respond(id: number, response: { ok: boolean; error: string | null; data: FsResponseData }): void {
    this.#connection.send(id, FLAG_TERMINAL, "core.fs.response", response);
  }
}
