/**
 * Toolbox file routes other than bulk transfers: list (with `depth`), info,
 * create folder (with `mode`), delete (refusing a directory without
 * `recursive=true`), move, and single-file download. File info has the
 * daemon's shape: Go's `FileMode.String()` in `mode`, octal `permissions`,
 * Go's `Time.String()` in `modTime` and ISO-8601 in `modifiedAt`.
 *
 * @module
 */

import { type FileInfo, quoteShellArg, type SandboxHandle } from "@sandport/core";
import type { EmulatorServer } from "../harness/http-server.js";
import type { DaytonaContext, DaytonaSandbox } from "./context.js";
import { DaemonError, toDaemonError } from "./errors.js";
import { baseName, toBackendPath, toSandboxAbsolute, toWorkspaceRelative } from "./paths.js";
import { BadRequestError, parseInteger } from "./request-body.js";
import { runShell } from "./shell.js";
import { toolboxRoutes } from "./toolbox-routes.js";

const OPERATION_TIMEOUT_MS = 60_000;
/** The uid and gid of the sandbox user `daytona`, as the daemon reports owner and group. */
const DAYTONA_UID = "1000";

/** Register the file routes. */
export function registerToolboxFiles(server: EmulatorServer, context: DaytonaContext): void {
  const add = toolboxRoutes(server, context);
  const backend = context.backend;

  add("GET", "/files", async (exchange, _sandbox, handle) => {
    const path = exchange.url.searchParams.get("path") || ".";
    const depthText = exchange.url.searchParams.get("depth");
    const depth = depthText === null ? 1 : parseInteger(depthText, "depth", 1);
    const relative = toWorkspaceRelative(path);
    const self = await statOf(context, handle, relative, path);
    if (self.kind !== "directory") throw new DaemonError(400, "BAD_REQUEST", `${path} is not a directory`);
    exchange.json(200, await listTree(context, handle, relative, depth));
  });

  add("GET", "/files/info", async (exchange, _sandbox, handle) => {
    const path = requiredPath(exchange.url.searchParams.get("path"));
    exchange.json(200, fileInfoJson(await statOf(context, handle, toWorkspaceRelative(path), path)));
  });

  add("POST", "/files/folder", async (exchange, sandbox, handle) => {
    const path = requiredPath(exchange.url.searchParams.get("path"));
    const mode = exchange.url.searchParams.get("mode") || "755";
    if (!/^[0-7]{1,4}$/.test(mode)) throw new BadRequestError("invalid mode format");
    const relative = toWorkspaceRelative(path);
    if (relative !== "") {
      const target = toBackendPath(backend, relative);
      if (backend.mkdir) await backend.mkdir(handle, target, { timeoutMs: OPERATION_TIMEOUT_MS });
      else await run(context, sandbox, handle, `mkdir -p -- ${quoteShellArg(target)}`);
      await run(context, sandbox, handle, `chmod ${mode} -- ${quoteShellArg(target)}`);
    }
    exchange.reply(201);
  });

  add("DELETE", "/files", async (exchange, _sandbox, handle) => {
    const path = requiredPath(exchange.url.searchParams.get("path"));
    const relative = toWorkspaceRelative(path);
    const info = await statOf(context, handle, relative, path);
    if (relative === "") throw new DaemonError(400, "BAD_REQUEST", "refusing to delete the home directory");
    if (info.kind === "directory" && exchange.url.searchParams.get("recursive") !== "true") {
      throw new DaemonError(400, "BAD_REQUEST", "cannot delete directory without recursive flag");
    }
    if (!backend.remove) throw new DaemonError(501, "NOT_IMPLEMENTED", "the emulator's backend runtime has no remove");
    await backend.remove(handle, toBackendPath(backend, relative), { timeoutMs: OPERATION_TIMEOUT_MS });
    exchange.reply(204);
  });

  add("POST", "/files/move", async (exchange, sandbox, handle) => {
    const source = requiredPath(exchange.url.searchParams.get("source"));
    const destination = requiredPath(exchange.url.searchParams.get("destination"));
    const from = toWorkspaceRelative(source);
    const to = toWorkspaceRelative(destination);
    if (from === "" || to === "") throw new BadRequestError("cannot move the home directory");
    await statOf(context, handle, from, source);
    const quoted = [from, to].map((relative) => quoteShellArg(toBackendPath(backend, relative)));
    await run(context, sandbox, handle, `mv -f -T -- ${quoted.join(" ")}`);
    exchange.reply(200);
  });

  add("GET", "/files/download", async (exchange, _sandbox, handle) => {
    const path = requiredPath(exchange.url.searchParams.get("path"));
    const relative = toWorkspaceRelative(path);
    let data: Uint8Array;
    try {
      data = await backend.readFile(handle, toBackendPath(backend, relative), { timeoutMs: OPERATION_TIMEOUT_MS });
    } catch (error) {
      throw toDaemonError(error, path);
    }
    exchange.reply(
      200,
      {
        "content-type": "application/octet-stream",
        "content-disposition": `attachment; filename=${JSON.stringify(baseName(relative))}`,
      },
      data,
    );
  });
}

function requiredPath(path: string | null): string {
  if (!path) throw new BadRequestError("path is required");
  return path;
}

/** One entry's metadata; a missing path is the daemon's `FILE_NOT_FOUND`. */
export async function statOf(
  context: DaytonaContext,
  handle: SandboxHandle,
  relative: string,
  requested: string,
): Promise<FileInfo> {
  const backend = context.backend;
  if (!backend.stat) throw new DaemonError(501, "NOT_IMPLEMENTED", "the emulator's backend runtime has no stat");
  try {
    return await backend.stat(handle, toBackendPath(backend, relative), { timeoutMs: OPERATION_TIMEOUT_MS });
  } catch (error) {
    throw toDaemonError(error, requested);
  }
}

async function listTree(context: DaytonaContext, handle: SandboxHandle, relative: string, depth: number) {
  const backend = context.backend;
  if (!backend.listDir) throw new DaemonError(501, "NOT_IMPLEMENTED", "the emulator's backend runtime has no listDir");
  const infos = await backend.listDir(handle, toBackendPath(backend, relative), { timeoutMs: OPERATION_TIMEOUT_MS });
  const entries: ReturnType<typeof fileInfoJson>[] = [];
  for (const info of infos) {
    entries.push(fileInfoJson(info));
    if (depth > 1 && info.kind === "directory")
      entries.push(...(await listTree(context, handle, info.path, depth - 1)));
  }
  return entries;
}

async function run(context: DaytonaContext, sandbox: DaytonaSandbox, handle: SandboxHandle, command: string) {
  const outcome = await runShell(context.backend, handle, {
    command,
    cwd: undefined,
    env: sandbox.data.env,
    timeoutMs: OPERATION_TIMEOUT_MS,
    signal: AbortSignal.timeout(OPERATION_TIMEOUT_MS + 5_000),
    mergeOutput: true,
  });
  if (outcome.exitCode !== 0) throw new DaemonError(400, "BAD_REQUEST", outcome.stdout.trim() || `${command} failed`);
}

/** The daemon's `FileInfo` for one entry. */
export function fileInfoJson(info: FileInfo) {
  const isDir = info.kind === "directory";
  const permissions = (info.mode ?? (isDir ? 0o755 : 0o644)) & 0o777;
  const modified = info.modifiedAt === undefined ? new Date(0) : new Date(info.modifiedAt);
  return {
    name: info.name || baseName(info.path),
    path: toSandboxAbsolute(info.path),
    size: info.size,
    isDir,
    mode: goFileMode(info.kind, permissions),
    permissions: permissions.toString(8).padStart(4, "0"),
    owner: DAYTONA_UID,
    group: DAYTONA_UID,
    modTime: goTimeString(modified),
    modifiedAt: modified.toISOString(),
  };
}

/** Go's `os.FileMode.String()`: `drwxr-xr-x`, `-rw-r--r--`, `Lrwxrwxrwx`. */
function goFileMode(kind: FileInfo["kind"], permissions: number): string {
  const type = kind === "directory" ? "d" : kind === "symlink" ? "L" : "-";
  let bits = "";
  for (const shift of [6, 3, 0]) {
    const triple = (permissions >> shift) & 0o7;
    bits += `${triple & 4 ? "r" : "-"}${triple & 2 ? "w" : "-"}${triple & 1 ? "x" : "-"}`;
  }
  return type + bits;
}

/** Go's `time.Time.String()` for a UTC time: `2006-01-02 15:04:05.999999999 +0000 UTC`. */
function goTimeString(time: Date): string {
  const iso = time.toISOString();
  const fraction = iso.slice(20, 23).replace(/0+$/, "");
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ""} +0000 UTC`;
}
