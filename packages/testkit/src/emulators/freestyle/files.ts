/**
 * The guest filesystem under `/v5/vms/{id}/fs`: `read` (raw bytes, `Range`
 * for part of a file), `write` (raw `application/octet-stream` body, `mode`,
 * `sha256` checked), `dir`, `mkdir`, `remove`, `exists` and `stat`. Paths are
 * absolute VM paths inside the workspace directory. Any call starts a paused
 * VM first, as a read wakes a real one.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { type FileInfo, type SandboxRuntime, SandportError } from "@sandport/core";
import type { EmulatorServer } from "../harness/http-server.js";
import { ApiError, type ApiReply, badRequest, emptyReply, jsonReply, notEmulated } from "./api.js";
import type { FreestyleContext, FreestyleVm } from "./context.js";
import { fromBackendError } from "./errors.js";
import { toBackendPath, toVmPath, toWorkspaceRelative } from "./paths.js";
import { type ApiCall, addApiRoute, vmOf } from "./routes.js";

/** Mode of a new file written without `mode`. */
const DEFAULT_FILE_MODE = 0o600;

/** Register the filesystem routes. */
export function registerFileRoutes(server: EmulatorServer, context: FreestyleContext): void {
  const add = (method: string, action: string, handler: (call: ApiCall, vm: FreestyleVm) => Promise<ApiReply>) =>
    addApiRoute(server, context, method, `/v5/vms/:id/fs/${action}`, (call) => {
      const vm = vmOf(call, context);
      context.startVm(vm);
      return handler(call, vm);
    });
  const files = new VmFiles(context);

  add("GET", "read", (call, vm) => files.read(call, vm));
  add("PUT", "write", async (call, vm) => {
    const relative = files.fileTarget(call.query.get("path"));
    const mode = parseMode(call.query.get("mode"));
    checkDigest(call.exchange.body, call.query.get("sha256"));
    const contentType = (call.exchange.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (contentType !== "application/octet-stream") {
      throw badRequest(`write takes the raw bytes as application/octet-stream, not ${contentType || "(none)"}`);
    }
    await files.write(vm, relative, call.exchange.body, mode, call.signal);
    return emptyReply();
  });
  add("GET", "dir", async (call, vm) => {
    const entries = await files.listDir(vm, files.target(call.query.get("path")), call.signal);
    return jsonReply(200, { entries: entries.map((entry) => ({ name: entry.name, kind: entry.kind })) });
  });
  add("POST", "mkdir", async (call, vm) => {
    const body = call.json();
    if (typeof body.path !== "string") throw badRequest("path must be a string");
    await files.mkdir(vm, files.target(body.path), call.signal);
    return emptyReply();
  });
  add("DELETE", "remove", async (call, vm) => {
    await files.remove(vm, files.fileTarget(call.query.get("path")), call.signal);
    return emptyReply();
  });
  add("GET", "exists", async (call, vm) => {
    const relative = files.target(call.query.get("path"));
    try {
      await files.stat(vm, relative, call.signal);
      return jsonReply(200, { exists: true });
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return jsonReply(200, { exists: false });
      throw error;
    }
  });
  add("GET", "stat", async (call, vm) => {
    const info = await files.stat(vm, files.target(call.query.get("path")), call.signal);
    return jsonReply(200, statJson(info, context.linuxUser));
  });
}

/** File operations on a VM's backend sandbox, shared with the upload sessions and `/v1`. */
export class VmFiles {
  readonly #context: FreestyleContext;

  constructor(context: FreestyleContext) {
    this.#context = context;
  }

  /** A VM path (`/v1`: possibly relative to `base`) as a workspace-relative path. */
  target(path: string | null | undefined, base?: string): string {
    if (path === null || path === undefined) throw badRequest("path is required");
    return toWorkspaceRelative(this.#context.workspaceDirectory, path, base);
  }

  /** Like {@link target}, refusing the workspace directory itself. */
  fileTarget(path: string | null | undefined, base?: string): string {
    const relative = this.target(path, base);
    if (relative === "") throw badRequest(`${path} is the workspace directory, not a file`);
    return relative;
  }

  /** One entry's metadata; 404 `FILE_NOT_FOUND` when absent. */
  stat(vm: FreestyleVm, relative: string, signal: AbortSignal): Promise<FileInfo> {
    const stat = this.#optional("stat");
    return this.backendCall(() => stat(vm.data.handle, this.#backendPath(relative), { signal }), relative);
  }

  /** A directory's entries; 404 `FILE_NOT_FOUND` when absent. */
  listDir(vm: FreestyleVm, relative: string, signal: AbortSignal): Promise<FileInfo[]> {
    const listDir = this.#optional("listDir");
    return this.backendCall(() => listDir(vm.data.handle, this.#backendPath(relative), { signal }), relative);
  }

  /** Create a directory and its parents. */
  async mkdir(vm: FreestyleVm, relative: string, signal: AbortSignal): Promise<void> {
    const mkdir = this.#optional("mkdir");
    await this.backendCall(() => mkdir(vm.data.handle, this.#backendPath(relative), { signal }), relative);
  }

  /** Remove a file or a directory tree; 404 `FILE_NOT_FOUND` when absent. */
  async remove(vm: FreestyleVm, relative: string, signal: AbortSignal): Promise<void> {
    const remove = this.#optional("remove");
    await this.stat(vm, relative, signal);
    await this.backendCall(() => remove(vm.data.handle, this.#backendPath(relative), { signal }), relative);
  }

  /** `GET fs/read`: the bytes, or the `Range` asked for (206). */
  async read(call: ApiCall, vm: FreestyleVm): Promise<ApiReply> {
    const relative = this.fileTarget(call.query.get("path"));
    const data = await this.readBytes(vm, relative, call.signal);
    const range = call.exchange.header("range");
    const headers = { "content-type": "application/octet-stream" };
    if (range === undefined) return { status: 200, headers, body: data };
    const match = /^bytes=(\d+)-(\d*)$/.exec(range.trim());
    if (!match) throw badRequest(`unsupported Range ${range}`);
    const start = Number(match[1]);
    const end = match[2] === "" ? data.length - 1 : Math.min(Number(match[2]), data.length - 1);
    if (start >= data.length || end < start) {
      throw new ApiError(416, "RANGE_NOT_SATISFIABLE", `range ${range} is outside the file (${data.length} bytes)`);
    }
    return {
      status: 206,
      headers: { ...headers, "content-range": `bytes ${start}-${end}/${data.length}` },
      body: data.subarray(start, end + 1),
    };
  }

  /** A whole file's bytes; 404 `FILE_NOT_FOUND` when absent. */
  readBytes(vm: FreestyleVm, relative: string, signal: AbortSignal): Promise<Uint8Array> {
    const backend = this.#context.backend;
    return this.backendCall(() => backend.readFile(vm.data.handle, this.#backendPath(relative), { signal }), relative);
  }

  /** Write a file; without `mode` it keeps the existing file's mode, or gets 0600. */
  async write(
    vm: FreestyleVm,
    relative: string,
    content: Uint8Array,
    mode: number | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const context = this.#context;
    let finalMode = mode;
    if (finalMode === undefined) {
      const existing = await this.stat(vm, relative, signal).catch(() => undefined);
      finalMode = existing?.kind === "file" && existing.mode !== undefined ? existing.mode : DEFAULT_FILE_MODE;
    }
    await this.backendCall(() =>
      context.backend.writeFiles(vm.data.handle, [{ path: relative, content, mode: finalMode }], { signal }),
    );
  }

  #backendPath(relative: string): string {
    return toBackendPath(this.#context.backend, relative);
  }

  /** An optional port method of the backend, bound; `NOT_EMULATED` when the backend lacks it. */
  #optional<K extends "stat" | "listDir" | "mkdir" | "remove">(name: K): NonNullable<SandboxRuntime[K]> {
    const backend = this.#context.backend;
    const method = backend[name];
    if (typeof method !== "function") throw notEmulated(`the backend runtime has no ${name}`);
    return method.bind(backend) as NonNullable<SandboxRuntime[K]>;
  }

  /** Run a backend call, answering its failure as the API would (404 names `relative`). */
  async backendCall<T>(action: () => Promise<T>, relative?: string): Promise<T> {
    try {
      return await action();
    } catch (error) {
      const missing =
        relative !== undefined && SandportError.isInstance(error) && error.code === "NOT_FOUND"
          ? new ApiError(
              404,
              "FILE_NOT_FOUND",
              `File not found: ${toVmPath(this.#context.workspaceDirectory, relative)}`,
            )
          : undefined;
      throw fromBackendError(error, missing);
    }
  }
}

/** `stat`'s answer (`FileStat` in the SDK). */
export function statJson(info: FileInfo, owner: string): Record<string, unknown> {
  return {
    size: info.size,
    isFile: info.kind === "file",
    isDirectory: info.kind === "directory",
    isSymlink: info.kind === "symlink",
    permissions: `0${((info.mode ?? 0) & 0o7777).toString(8).padStart(3, "0")}`,
    owner,
    group: owner,
    modified: info.modifiedAt ?? new Date(0).toISOString(),
  };
}

/** `mode` as sent in the query (decimal, e.g. `493` for 0o755). */
export function parseMode(raw: string | null): number | undefined {
  if (raw === null || raw === "") return undefined;
  const mode = Number(raw);
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw badRequest("mode must be an integer from 0 to 4095");
  return mode;
}

/** Refuse a body whose SHA-256 is not the one the client sent. */
export function checkDigest(body: Uint8Array, expected: string | null): void {
  if (expected === null || expected === "") return;
  const actual = createHash("sha256").update(body).digest("hex");
  if (actual !== expected.toLowerCase()) {
    throw new ApiError(400, "SHA256_MISMATCH", `the body's sha256 is ${actual}, the request said ${expected}`);
  }
}
