/**
 * agentd's handle-based file I/O for one agent connection: `OpenFile`,
 * `Read` (answered with `core.fs.data` chunks of at most 3 MiB, then the
 * response), `Write` (fed by the client's `core.fs.data` chunks until an
 * empty one) and `CloseHandle`. Handles die with their connection, as agentd
 * closes a disconnected client's handles.
 *
 * The port reads and writes whole files, so a write lands once its last chunk
 * arrived, spliced into the existing content at its offset.
 *
 * @module
 */

import { FLAG_TERMINAL, FS_CHUNK_SIZE } from "./agent-codec.js";
import type { AgentConnection } from "./agent-connection.js";
import { FsFailure, OS_ERROR, relativePath, type SandboxFiles } from "./fs-support.js";
import { parentOf } from "./paths.js";

/** `FsOpenOptions` as the SDK sends them. */
interface OpenOptions {
  readonly read: boolean;
  readonly write: boolean;
  readonly append: boolean;
  readonly create: boolean;
  readonly truncate: boolean;
  readonly createNew: boolean;
  readonly mode: number | undefined;
}

interface OpenFile {
  readonly relative: string;
  readonly readable: boolean;
  readonly writable: boolean;
  readonly append: boolean;
}

interface WriteSession {
  readonly handle: number;
  readonly file: OpenFile;
  readonly offset: number;
  readonly expectedLength: number | undefined;
  readonly chunks: Buffer[];
  received: number;
}

const DEFAULT_FILE_MODE = 0o644;

/** The open handles and in-flight writes of one connection. */
export class FileHandles {
  readonly #files: SandboxFiles;
  readonly #connection: AgentConnection;
  readonly #open = new Map<number, OpenFile>();
  readonly #writes = new Map<number, WriteSession>();
  #nextHandle = 1;

  constructor(files: SandboxFiles, connection: AgentConnection) {
    this.#files = files;
    this.#connection = connection;
  }

  /** `OpenFile { path, options }` → `Handle(n)`. */
  async open(op: Record<string, unknown>): Promise<{ Handle: number }> {
    const relative = relativePath("open", op.path);
    const options = readOptions(op.options);
    const writes = options.write || options.append;
    const existing = await this.#files.stat(relative);
    if (existing?.kind === "directory" && writes) throw new FsFailure("open", OS_ERROR.isDirectory);
    if (existing && options.createNew && writes) throw new FsFailure("open", OS_ERROR.exists);
    if (!existing) {
      if (!writes || !(options.create || options.createNew)) throw new FsFailure("open", OS_ERROR.notFound);
      const parent = await this.#files.stat(parentOf(relative));
      if (!parent) throw new FsFailure("open", OS_ERROR.notFound);
      if (parent.kind !== "directory") throw new FsFailure("open", OS_ERROR.notDirectory);
      await this.#files.write(relative, new Uint8Array(), options.mode ?? DEFAULT_FILE_MODE);
    } else if (options.truncate && writes && existing.size > 0) {
      await this.#files.write(relative, new Uint8Array(), existing.mode);
    }
    const handle = this.#nextHandle++;
    this.#open.set(handle, { relative, readable: options.read, writable: writes, append: options.append });
    return { Handle: handle };
  }

  /** `CloseHandle { handle }`. */
  close(op: Record<string, unknown>): void {
    if (!this.#open.delete(Number(op.handle))) throw new FsFailure("close", `invalid handle: ${op.handle}`);
  }

  /** `Read { handle, offset, len }`: sends the data chunks; the caller sends the response. */
  async read(id: number, op: Record<string, unknown>): Promise<void> {
    const handle = Number(op.handle);
    const file = this.#open.get(handle);
    if (!file) throw new FsFailure("read", `invalid handle: ${op.handle}`);
    if (!file.readable) throw new FsFailure("read", `handle ${handle} is not open for reading`);
    const info = await this.#files.stat(file.relative);
    if (info?.kind === "directory") throw new FsFailure("read", OS_ERROR.isDirectory);
    const content = await this.#files.read(file.relative);
    const offset = toCount(op.offset) ?? 0;
    const length = toCount(op.len);
    const wanted = content.subarray(offset, length === undefined ? undefined : offset + length);
    for (let start = 0; start < wanted.length; start += FS_CHUNK_SIZE) {
      this.#connection.send(id, 0, "core.fs.data", { data: wanted.subarray(start, start + FS_CHUNK_SIZE) });
    }
  }

  /** `Write { handle, offset, len }`: opens a write session fed by `core.fs.data` on the same id. */
  startWrite(id: number, op: Record<string, unknown>): void {
    const handle = Number(op.handle);
    const file = this.#open.get(handle);
    if (!file) throw new FsFailure("write", `invalid handle: ${op.handle}`);
    if (!file.writable) throw new FsFailure("write", `handle ${handle} is not open for writing`);
    this.#writes.set(id, {
      handle,
      file,
      offset: toCount(op.offset) ?? 0,
      expectedLength: toCount(op.len),
      chunks: [],
      received: 0,
    });
  }

  /**
   * `core.fs.data` on a write session. The empty chunk ends it: the content
   * is written and the session answered. Data for no session is ignored, as
   * agentd ignores it.
   */
  data(id: number, payload: unknown): void {
    const session = this.#writes.get(id);
    if (!session) return;
    const data = (payload as { data?: unknown } | undefined)?.data;
    const chunk = data instanceof Uint8Array ? Buffer.from(data) : Buffer.alloc(0);
    if (chunk.length > 0) {
      session.chunks.push(chunk);
      session.received += chunk.length;
      return;
    }
    this.#writes.delete(id);
    void this.#finishWrite(session).then(
      () => this.#respond(id, { ok: true, error: null, data: null }),
      (error: unknown) => this.#respond(id, { ok: false, error: messageOf(error), data: null }),
    );
  }

  async #finishWrite(session: WriteSession): Promise<void> {
    if (session.expectedLength !== undefined && session.received !== session.expectedLength) {
      throw new Error(`write length mismatch: expected ${session.expectedLength}, wrote ${session.received}`);
    }
    const data = Buffer.concat(session.chunks);
    const info = await this.#files.stat(session.file.relative);
    if (!info) throw new FsFailure("write", OS_ERROR.notFound);
    const existing = info.size === 0 ? Buffer.alloc(0) : await this.#files.read(session.file.relative);
    const start = session.file.append ? existing.length : session.offset;
    const content = Buffer.alloc(Math.max(existing.length, start + data.length));
    existing.copy(content);
    data.copy(content, start);
    await this.#files.write(session.file.relative, content, info.mode);
  }

  #respond(id: number, response: { ok: boolean; error: string | null; data: null }): void {
    this.#connection.send(id, FLAG_TERMINAL, "core.fs.response", response);
  }
}

function readOptions(value: unknown): OpenOptions {
  const raw = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  return {
    read: raw.read === true,
    write: raw.write === true,
    append: raw.append === true,
    create: raw.create === true,
    truncate: raw.truncate === true,
    createNew: raw.create_new === true,
    mode: typeof raw.mode === "number" ? raw.mode : undefined,
  };
}

function toCount(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  const count = Number(value);
  return Number.isSafeInteger(count) && count >= 0 ? count : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
