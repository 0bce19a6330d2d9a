/**
 * Toolbox bulk transfers, binary-safe. `files/bulk-upload` takes a multipart
 * form of `files[i].path` and `files[i].file` fields; `files/bulk-download`
 * takes `{ paths }` and answers `multipart/form-data` (boundary
 * `DAYTONA-FILE-BOUNDARY`) with one part per path, in order: a `file` part
 * whose filename is the path exactly as requested, or an `error` part with the
 * daemon's JSON error (`FILE_NOT_FOUND`, `INVALID_FILE_PATH`, ...).
 *
 * @module
 */

import type { FileInput, SandboxHandle } from "@sandport/core";
import type { EmulatorServer } from "../harness/http-server.js";
import type { DaytonaContext } from "./context.js";
import { DaemonError, messageOf, toDaemonError } from "./errors.js";
import { toBackendPath, toWorkspaceRelative } from "./paths.js";
import { BadRequestError, readObject } from "./request-body.js";
import { toolboxRoutes } from "./toolbox-routes.js";

const BOUNDARY = "DAYTONA-FILE-BOUNDARY";
const OPERATION_TIMEOUT_MS = 30 * 60_000;
/** Go's `mime.TypeByExtension` for the extensions a test is likely to use; anything else is octet-stream. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".txt": "text/plain; charset=utf-8",
  ".json": "application/json",
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".png": "image/png",
};

/** Register the bulk upload and download routes. */
export function registerToolboxTransfer(server: EmulatorServer, context: DaytonaContext): void {
  const add = toolboxRoutes(server, context);

  add("POST", "/files/bulk-upload", async (exchange, _sandbox, handle) => {
    const contentType = exchange.header("content-type") ?? "";
    if (!contentType.toLowerCase().startsWith("multipart/form-data"))
      throw new BadRequestError("invalid multipart form");
    let form: FormData;
    try {
      form = await new Response(exchange.body, { headers: { "content-type": contentType } }).formData();
    } catch (error) {
      throw new BadRequestError(`invalid multipart form: ${messageOf(error)}`);
    }
    const destinations = new Map<string, string>();
    const files: FileInput[] = [];
    for (const [name, value] of form.entries()) {
      const field = /^files\[(\d+)\]\.(path|file)$/.exec(name);
      if (!field) continue;
      const index = field[1]!;
      if (field[2] === "path") {
        if (typeof value !== "string") throw new BadRequestError(`${name} must be a text field`);
        destinations.set(index, value);
        continue;
      }
      const destination = destinations.get(index);
      if (destination === undefined) throw new BadRequestError(`file[${index}]: missing .path metadata`);
      const relative = toWorkspaceRelative(destination);
      if (relative === "") throw new BadRequestError(`${destination} is a directory`);
      const content = typeof value === "string" ? Buffer.from(value) : new Uint8Array(await value.arrayBuffer());
      files.push({ path: toBackendPath(context.backend, relative), content });
    }
    await context.backend.writeFiles(handle, files, { timeoutMs: OPERATION_TIMEOUT_MS });
    exchange.reply(200);
  });

  add("POST", "/files/bulk-download", async (exchange, _sandbox, handle) => {
    const paths = readObject(exchange).paths;
    if (!Array.isArray(paths) || paths.length === 0 || paths.some((path) => typeof path !== "string")) {
      throw new BadRequestError('request body must be {"paths": [ ... ]} and non-empty');
    }
    const parts: Buffer[] = [];
    for (const path of paths as string[]) parts.push(await downloadPart(context, handle, path, exchange.method));
    // Go's multipart writer: "--B" before the first part, "\r\n--B" before each later one and the close.
    const separated = parts.flatMap((content, index) => (index === 0 ? [content] : [Buffer.from("\r\n"), content]));
    const body = Buffer.concat([...separated, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
    exchange.reply(200, { "content-type": `multipart/form-data; boundary=${BOUNDARY}` }, body);
  });
}

/** One part: the file's bytes, or the daemon's JSON error for that path. */
async function downloadPart(
  context: DaytonaContext,
  handle: SandboxHandle,
  path: string,
  method: string,
): Promise<Buffer> {
  try {
    if (path === "") throw new DaemonError(400, "INVALID_FILE_PATH", "invalid file path: path is empty");
    const relative = toWorkspaceRelative(path);
    const backend = context.backend;
    if (relative === "" || (await backend.stat?.(handle, toBackendPath(backend, relative)))?.kind === "directory") {
      throw new DaemonError(400, "INVALID_FILE_PATH", `invalid file path: path points to a directory: ${path}`);
    }
    const data = await backend.readFile(handle, toBackendPath(backend, relative), { timeoutMs: OPERATION_TIMEOUT_MS });
    return part("file", path, contentTypeOf(path), Buffer.from(data));
  } catch (error) {
    const failure = toDaemonError(error, path);
    const payload = {
      statusCode: failure.status,
      message: failure.message,
      code: failure.code,
      source: "DAYTONA_DAEMON",
      timestamp: new Date().toISOString(),
      path,
      method,
    };
    return part("error", path, "application/json; charset=utf-8", Buffer.from(JSON.stringify(payload)));
  }
}

function part(name: string, path: string, contentType: string, content: Buffer): Buffer {
  const filename = path
    .replaceAll("\\", "\\\\")
    .replaceAll('"', '\\"')
    .replace(/[\r\n]/g, "");
  const head =
    `--${BOUNDARY}\r\n` +
    `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\n` +
    `Content-Type: ${contentType}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), content]);
}

function contentTypeOf(path: string): string {
  const dot = path.lastIndexOf(".");
  const extension = dot > path.lastIndexOf("/") ? path.slice(dot).toLowerCase() : "";
  return CONTENT_TYPES[extension] ?? "application/octet-stream";
}
