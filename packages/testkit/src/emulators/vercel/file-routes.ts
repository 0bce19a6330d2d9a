/**
 * Files: `POST .../fs/write` (a gzipped tar, many files in one request, modes
 * kept), `POST .../fs/read` (raw bytes, 404 when absent) and `POST .../fs/mkdir`
 * (one level, like `mkdir` without `-p`).
 *
 * @module
 */

import { posix } from "node:path";
import { gunzipSync } from "node:zlib";
import { type FileInput, invalidRequest, type SandboxHandle, SandportError } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import { addGuardedRoute } from "./auth.js";
import type { VercelContext } from "./context.js";
import { badRequest, messageOf, notFound, replyFailure } from "./errors.js";
import { toSandboxAbsolute, toWorkspaceRelative } from "./paths.js";
import { readObject } from "./request-body.js";
import { type SessionTarget, withSession } from "./session-guard.js";
import { readTar, type TarEntry } from "./tar.js";

const OP_TIMEOUT_MS = 60_000;
const GZIP_TYPES = new Set(["application/gzip", "application/x-gzip"]);

/** Register the file routes; every one needs the token, the team and a running session. */
export function registerFileRoutes(server: EmulatorServer, context: VercelContext): void {
  const add = (pattern: string, handler: (exchange: Exchange, target: SessionTarget) => Promise<void>) =>
    addGuardedRoute(server, context, "POST", pattern, (exchange) =>
      withSession(exchange, context, (target) => handler(exchange, target)),
    );
  add("/v2/sandboxes/sessions/:sessionId/fs/write", (exchange, target) => write(exchange, context, target));
  add("/v2/sandboxes/sessions/:sessionId/fs/read", (exchange, target) => read(exchange, context, target));
  add("/v2/sandboxes/sessions/:sessionId/fs/mkdir", (exchange, target) => mkdir(exchange, context, target));
}

async function write(exchange: Exchange, context: VercelContext, { sandbox }: SessionTarget): Promise<void> {
  const mediaType = (exchange.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!GZIP_TYPES.has(mediaType)) {
    badRequest(exchange, "the body must be a gzipped tar archive (content-type application/gzip)");
    return;
  }
  const extractDirectory = exchange.header("x-cwd") ?? "/";
  if (!extractDirectory.startsWith("/")) {
    badRequest(exchange, "x-cwd must be an absolute path");
    return;
  }
  let entries: TarEntry[];
  try {
    entries = readTar(gunzipSync(exchange.body));
  } catch (error) {
    badRequest(exchange, `the body is not a gzipped tar archive: ${messageOf(error)}`);
    return;
  }
  // Every member is checked before anything is written: a refused path writes nothing.
  const files: FileInput[] = [];
  const directories: string[] = [];
  for (const entry of entries) {
    let relative: string;
    try {
      relative = toWorkspaceRelative(posix.resolve(extractDirectory, entry.name));
    } catch (error) {
      badRequest(exchange, `${entry.name}: ${messageOf(error)}`);
      return;
    }
    if (entry.kind === "directory") {
      if (relative !== "") directories.push(relative);
    } else if (relative === "") {
      badRequest(exchange, `${entry.name}: a file cannot replace ${toSandboxAbsolute("")}`);
      return;
    } else {
      files.push({ path: relative, content: entry.content, mode: entry.mode });
    }
  }
  const handle = sandbox.data.handle!;
  const op = { signal: exchange.signal, timeoutMs: OP_TIMEOUT_MS };
  try {
    for (const directory of directories) {
      if (context.backend.mkdir) await context.backend.mkdir(handle, directory, op);
      else await run(context, exchange, handle, ["mkdir", "-p", "--", directory]);
    }
    if (files.length > 0) await context.backend.writeFiles(handle, files, op);
  } catch (error) {
    replyFailure(exchange, error);
    return;
  }
  exchange.json(200, {});
}

async function read(exchange: Exchange, context: VercelContext, { sandbox }: SessionTarget): Promise<void> {
  const relative = readPath(exchange);
  if (relative === undefined) return;
  if (relative === "") {
    badRequest(exchange, `${toSandboxAbsolute(relative)} is a directory`);
    return;
  }
  let data: Uint8Array;
  try {
    data = await context.backend.readFile(sandbox.data.handle!, relative, {
      signal: exchange.signal,
      timeoutMs: OP_TIMEOUT_MS,
    });
  } catch (error) {
    if (SandportError.hasCode(error, "NOT_FOUND")) notFound(exchange, `File not found: ${toSandboxAbsolute(relative)}`);
    else replyFailure(exchange, error);
    return;
  }
  exchange.reply(200, { "content-type": "application/octet-stream" }, data);
}

async function mkdir(exchange: Exchange, context: VercelContext, { sandbox }: SessionTarget): Promise<void> {
  const relative = readPath(exchange);
  if (relative === undefined) return;
  const handle = sandbox.data.handle!;
  const backend = context.backend;
  const op = { signal: exchange.signal, timeoutMs: OP_TIMEOUT_MS };
  try {
    if (!backend.stat || !backend.mkdir) {
      await run(context, exchange, handle, ["mkdir", "--", relative === "" ? "." : relative]);
    } else {
      if (relative === "" || (await exists(context, handle, relative, op))) {
        badRequest(exchange, `${toSandboxAbsolute(relative)} already exists`);
        return;
      }
      const parent = posix.dirname(relative);
      if (parent !== "." && (await backend.stat(handle, parent, op).catch(() => undefined))?.kind !== "directory") {
        badRequest(exchange, `${toSandboxAbsolute(parent)} is not an existing directory`);
        return;
      }
      await backend.mkdir(handle, relative, op);
    }
  } catch (error) {
    replyFailure(exchange, error);
    return;
  }
  exchange.json(200, {});
}

/** The workspace-relative path of a `{ path, cwd }` body, or `undefined` after answering 400. */
function readPath(exchange: Exchange): string | undefined {
  const body = readObject(exchange);
  if (!body) return undefined;
  if (body.cwd !== undefined && body.cwd !== null && typeof body.cwd !== "string") {
    badRequest(exchange, "cwd must be a string");
    return undefined;
  }
  try {
    return toWorkspaceRelative(body.path, typeof body.cwd === "string" ? body.cwd : undefined);
  } catch (error) {
    badRequest(exchange, `path: ${messageOf(error)}`);
    return undefined;
  }
}

async function exists(
  context: VercelContext,
  handle: SandboxHandle,
  relative: string,
  op: { signal: AbortSignal; timeoutMs: number },
): Promise<boolean> {
  try {
    await context.backend.stat!(handle, relative, op);
    return true;
  } catch (error) {
    if (SandportError.hasCode(error, "NOT_FOUND")) return false;
    throw error;
  }
}

/** Run a helper command on the backend from the workspace root; a non-zero exit is a 400 with its stderr. */
async function run(context: VercelContext, exchange: Exchange, handle: SandboxHandle, argv: string[]): Promise<void> {
  const result = await context.backend.exec(
    handle,
    { argv, timeoutMs: OP_TIMEOUT_MS },
    { signal: exchange.signal, timeoutMs: OP_TIMEOUT_MS },
  );
  if (result.exitCode !== 0) throw invalidRequest(`${argv[0]} failed: ${result.stderr.trim()}`);
}
