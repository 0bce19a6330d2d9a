/**
 * envd REST: `GET /files` (raw bytes), `POST /files` (multipart, one part per
 * file, or `application/octet-stream` for one file) and `GET /health`.
 *
 * @module
 */

import { gunzipSync } from "node:zlib";
import type { FileInput } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { E2BContext } from "./context.js";
import { envdGuard, sandboxOf } from "./envd-guard.js";
import { messageOf, toHttpStatus } from "./errors.js";
import { baseName, isControlEntry, toBackendPath, toSandboxAbsolute, toWorkspaceRelative } from "./paths.js";

export function registerEnvdFiles(server: Pick<EmulatorServer, "route">, context: E2BContext): void {
  const guard = envdGuard(context, "rest");
  server.route({
    method: "GET",
    pattern: "/files",
    handler: (exchange) => (guard(exchange) ? download(exchange, context) : undefined),
  });
  server.route({
    method: "POST",
    pattern: "/files",
    handler: (exchange) => (guard(exchange) ? upload(exchange, context) : undefined),
  });
  const healthGuard = envdGuard(context, "rest", { requireToken: false });
  server.route({
    method: "GET",
    pattern: "/health",
    handler: (exchange) => {
      if (healthGuard(exchange)) exchange.reply(204);
    },
  });
}

function fail(exchange: Exchange, status: number, message: string): void {
  exchange.json(status, { code: status, message });
}

/** The workspace-relative path of a requested file, or `undefined` after answering 400. */
function fileTarget(exchange: Exchange, path: string | null | undefined): string | undefined {
  if (path === null || path === undefined || path === "") {
    fail(exchange, 400, "path is required");
    return undefined;
  }
  let relative: string;
  try {
    relative = toWorkspaceRelative(path);
  } catch (error) {
    fail(exchange, 400, messageOf(error));
    return undefined;
  }
  if (relative === "") {
    fail(exchange, 400, `path ${path} is a directory`);
    return undefined;
  }
  if (isControlEntry(relative.split("/")[0]!)) {
    fail(exchange, 400, `path ${path} is reserved by the emulator`);
    return undefined;
  }
  return relative;
}

async function download(exchange: Exchange, context: E2BContext): Promise<void> {
  const sandbox = sandboxOf(exchange);
  const relative = fileTarget(exchange, exchange.url.searchParams.get("path"));
  if (relative === undefined) return;
  let data: Uint8Array;
  try {
    data = await context.backend.readFile(sandbox.data.handle, toBackendPath(context.backend, relative), {
      signal: exchange.signal,
      timeoutMs: 60_000,
    });
  } catch (error) {
    const status = toHttpStatus(error);
    fail(exchange, status, status === 404 ? `path ${toSandboxAbsolute(relative)} does not exist` : messageOf(error));
    return;
  }
  exchange.reply(
    200,
    {
      "content-type": "application/octet-stream",
      "content-disposition": `attachment; filename=${JSON.stringify(baseName(relative))}`,
    },
    data,
  );
}

async function upload(exchange: Exchange, context: E2BContext): Promise<void> {
  const sandbox = sandboxOf(exchange);
  if (Object.keys(exchange.headers).some((name) => name.startsWith("x-metadata-"))) {
    // Silently dropping them would make a test pass that should not.
    fail(exchange, 400, "file metadata (X-Metadata-* headers) is not emulated");
    return;
  }
  const queryPath = exchange.url.searchParams.get("path");
  const mediaType = (exchange.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const files: { relative: string; content: Uint8Array }[] = [];

  if (mediaType === "multipart/form-data") {
    let form: FormData;
    try {
      form = await new Response(exchange.body, {
        headers: { "content-type": exchange.header("content-type")! },
      }).formData();
    } catch (error) {
      fail(exchange, 400, `malformed multipart body: ${messageOf(error)}`);
      return;
    }
    const parts = [...form.values()].filter((value) => typeof value !== "string");
    if (parts.length === 0) {
      fail(exchange, 400, "the multipart body has no file part");
      return;
    }
    if (queryPath && parts.length > 1) {
      fail(exchange, 400, "path names one file; send several files without path, each named by its part's filename");
      return;
    }
    for (const part of parts) {
      const relative = fileTarget(exchange, queryPath || part.name);
      if (relative === undefined) return;
      files.push({ relative, content: new Uint8Array(await part.arrayBuffer()) });
    }
  } else if (mediaType === "application/octet-stream") {
    const relative = fileTarget(exchange, queryPath);
    if (relative === undefined) return;
    let content: Uint8Array = exchange.body;
    if ((exchange.header("content-encoding") ?? "").toLowerCase() === "gzip") {
      try {
        content = gunzipSync(exchange.body);
      } catch (error) {
        fail(exchange, 400, `body is not valid gzip: ${messageOf(error)}`);
        return;
      }
    }
    files.push({ relative, content });
  } else {
    fail(exchange, 400, `unsupported content type ${exchange.header("content-type") ?? "(none)"}`);
    return;
  }

  const inputs: FileInput[] = files.map((file) => ({
    path: toBackendPath(context.backend, file.relative),
    content: file.content,
  }));
  try {
    await context.backend.writeFiles(sandbox.data.handle, inputs, { signal: exchange.signal, timeoutMs: 60_000 });
  } catch (error) {
    fail(exchange, toHttpStatus(error), messageOf(error));
    return;
  }
  exchange.json(
    200,
    files.map((file) => ({ name: baseName(file.relative), type: "file", path: toSandboxAbsolute(file.relative) })),
  );
}
