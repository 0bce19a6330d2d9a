/**
 * envd `filesystem.Filesystem` over Connect JSON: Stat, MakeDir, Remove,
 * ListDir and Move. Watchers (WatchDir, CreateWatcher, ...) are not emulated
 * and answer `unimplemented` like any unknown procedure.
 *
 * @module
 */

import { type FileInfo, SandportError } from "@sandport/core";
import { RpcError } from "../harness/connect-rpc.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { E2BContext, E2BSandbox } from "./context.js";
import { envdUnaryRoutes } from "./envd-guard.js";
import { messageOf, toRpcError } from "./errors.js";
import { baseName, isControlEntry, toBackendPath, toSandboxAbsolute, toWorkspaceRelative } from "./paths.js";

const SERVICE = "filesystem.Filesystem";
const OP_TIMEOUT_MS = 60_000;

/** envd's `EntryInfo` in proto3 JSON. */
interface EntryInfoJson {
  name: string;
  type: "FILE_TYPE_FILE" | "FILE_TYPE_DIRECTORY" | "FILE_TYPE_SYMLINK" | "FILE_TYPE_UNSPECIFIED";
  path: string;
  size: string;
  mode: number;
  permissions: string;
  owner: string;
  group: string;
  modifiedTime?: string;
}

export function registerEnvdFilesystem(server: Pick<EmulatorServer, "route">, context: E2BContext): void {
  const unary = envdUnaryRoutes(server, context, SERVICE);

  unary("Stat", async (request, sandbox) => ({ entry: await stat(context, sandbox, relativeOf(request.path)) }));

  unary("MakeDir", async (request, sandbox) => {
    const relative = relativeOf(request.path);
    const existing = await whenPresent(stat(context, sandbox, relative));
    // envd's MakeDir: an existing directory is already_exists (the SDK answers false), anything else invalid_argument.
    if (existing?.type === "FILE_TYPE_FILE")
      throw new RpcError(
        "invalid_argument",
        `path already exists but it is not a directory: ${toSandboxAbsolute(relative)}`,
      );
    if (existing) throw new RpcError("already_exists", `path ${toSandboxAbsolute(relative)} already exists`);
    const path = toBackendPath(context.backend, relative);
    if (context.backend.mkdir) await context.backend.mkdir(sandbox.data.handle, path, { timeoutMs: OP_TIMEOUT_MS });
    else await run(context, sandbox, ["mkdir", "-p", "--", path]);
    return { entry: await stat(context, sandbox, relative) };
  });

  unary("Remove", async (request, sandbox) => {
    const relative = relativeOf(request.path);
    if (relative === "") throw new RpcError("invalid_argument", "refusing to remove the home directory");
    const path = toBackendPath(context.backend, relative);
    if (context.backend.remove) await context.backend.remove(sandbox.data.handle, path, { timeoutMs: OP_TIMEOUT_MS });
    else await run(context, sandbox, ["rm", "-rf", "--", path]);
    return {};
  });

  unary("ListDir", async (request, sandbox) => {
    const relative = relativeOf(request.path);
    const depth = request.depth === undefined || request.depth === 0 ? 1 : Number(request.depth);
    if (!Number.isInteger(depth) || depth < 1) throw new RpcError("invalid_argument", "depth should be at least one");
    const self = await stat(context, sandbox, relative);
    if (self.type !== "FILE_TYPE_DIRECTORY") {
      throw new RpcError("invalid_argument", `path ${toSandboxAbsolute(relative)} is not a directory`);
    }
    return { entries: await list(context, sandbox, relative, depth) };
  });

  unary("Move", async (request, sandbox) => {
    const source = relativeOf(request.source);
    const destination = relativeOf(request.destination);
    if (source === "" || destination === "") throw new RpcError("invalid_argument", "cannot move the home directory");
    await stat(context, sandbox, source); // not_found when the source is absent
    const parent = destination.includes("/") ? destination.slice(0, destination.lastIndexOf("/")) : "";
    const backendParent = toBackendPath(context.backend, parent);
    if (parent !== "") {
      if (context.backend.mkdir)
        await context.backend.mkdir(sandbox.data.handle, backendParent, { timeoutMs: OP_TIMEOUT_MS });
      else await run(context, sandbox, ["mkdir", "-p", "--", backendParent]);
    }
    await run(context, sandbox, [
      "mv",
      "-f",
      "--",
      toBackendPath(context.backend, source),
      toBackendPath(context.backend, destination),
    ]);
    return { entry: await stat(context, sandbox, destination) };
  });
}

function relativeOf(path: unknown): string {
  if (typeof path !== "string") throw new RpcError("invalid_argument", "path is required");
  const relative = toWorkspaceRelative(path);
  if (relative !== "" && isControlEntry(relative.split("/")[0]!)) {
    throw new RpcError("not_found", `path ${path} does not exist`);
  }
  return relative;
}

/** The entry `stat` resolves to, or `undefined` where it answers `not_found`. */
async function whenPresent(entry: Promise<EntryInfoJson>): Promise<EntryInfoJson | undefined> {
  try {
    return await entry;
  } catch (error) {
    if (error instanceof RpcError && error.code === "not_found") return undefined;
    throw error;
  }
}

async function stat(context: E2BContext, sandbox: E2BSandbox, relative: string): Promise<EntryInfoJson> {
  if (relative === "") return homeEntry();
  const backend = context.backend;
  if (!backend.stat) throw new RpcError("unimplemented", "the emulator's backend runtime has no stat");
  try {
    return entryJson(
      await backend.stat(sandbox.data.handle, toBackendPath(backend, relative), { timeoutMs: OP_TIMEOUT_MS }),
    );
  } catch (error) {
    if (SandportError.hasCode(error, "NOT_FOUND")) {
      throw new RpcError("not_found", `path ${toSandboxAbsolute(relative)} does not exist`);
    }
    throw toRpcError(error);
  }
}

async function list(
  context: E2BContext,
  sandbox: E2BSandbox,
  relative: string,
  depth: number,
): Promise<EntryInfoJson[]> {
  const backend = context.backend;
  if (!backend.listDir) throw new RpcError("unimplemented", "the emulator's backend runtime has no listDir");
  let infos: FileInfo[];
  try {
    infos = await backend.listDir(sandbox.data.handle, toBackendPath(backend, relative), { timeoutMs: OP_TIMEOUT_MS });
  } catch (error) {
    if (SandportError.hasCode(error, "NOT_FOUND")) {
      throw new RpcError("not_found", `path ${toSandboxAbsolute(relative)} does not exist`);
    }
    throw toRpcError(error);
  }
  const entries: EntryInfoJson[] = [];
  for (const info of infos.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0))) {
    if (isControlEntry(info.path)) continue;
    entries.push(entryJson(info));
    if (depth > 1 && info.kind === "directory") entries.push(...(await list(context, sandbox, info.path, depth - 1)));
  }
  return entries;
}

function homeEntry(): EntryInfoJson {
  return {
    name: "user",
    type: "FILE_TYPE_DIRECTORY",
    path: toSandboxAbsolute(""),
    size: "4096",
    mode: 0o755,
    permissions: "drwxr-xr-x",
    owner: "user",
    group: "user",
  };
}

function entryJson(info: FileInfo): EntryInfoJson {
  const mode = info.mode ?? (info.kind === "directory" ? 0o755 : 0o644);
  const entry: EntryInfoJson = {
    name: info.name || baseName(info.path),
    type:
      info.kind === "file"
        ? "FILE_TYPE_FILE"
        : info.kind === "directory"
          ? "FILE_TYPE_DIRECTORY"
          : info.kind === "symlink"
            ? "FILE_TYPE_SYMLINK"
            : "FILE_TYPE_UNSPECIFIED",
    path: toSandboxAbsolute(info.path),
    size: String(info.size),
    mode: mode & 0o777,
    permissions: permissionString(info.kind, mode),
    owner: "user",
    group: "user",
  };
  if (info.modifiedAt) entry.modifiedTime = info.modifiedAt;
  return entry;
}

function permissionString(kind: FileInfo["kind"], mode: number): string {
  const type = kind === "directory" ? "d" : kind === "symlink" ? "L" : "-";
  let bits = "";
  for (const shift of [6, 3, 0]) {
    const triple = (mode >> shift) & 0o7;
    bits += `${triple & 4 ? "r" : "-"}${triple & 2 ? "w" : "-"}${triple & 1 ? "x" : "-"}`;
  }
  return type + bits;
}

async function run(context: E2BContext, sandbox: E2BSandbox, argv: string[]): Promise<void> {
  const result = await context.backend.exec(
    sandbox.data.handle,
    { argv, timeoutMs: OP_TIMEOUT_MS },
    { timeoutMs: OP_TIMEOUT_MS },
  );
  if (result.exitCode !== 0) {
    throw new RpcError(
      "internal",
      `${argv[0]} failed: ${result.stderr.trim() || messageOf(`exit ${result.exitCode}`)}`,
    );
  }
}
