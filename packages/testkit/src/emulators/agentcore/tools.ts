/**
 * The tools of `InvokeCodeInterpreter` this emulator runs for real on the
 * session's backend sandbox: `executeCommand`, `writeFiles` (text and blob),
 * `readFiles`, `removeFiles`. Paths are relative to the session's working
 * directory (the backend's workspace). Any other tool is refused as not emulated.
 *
 * @module
 */

import type { SandboxRuntime } from "@sandport/core";
import { validation } from "./errors.js";
import type { Session } from "./sessions.js";

/** `CodeInterpreterResult` as the event stream carries it (binary fields base64). */
export interface ToolResult {
  readonly content: readonly Record<string, unknown>[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError: boolean;
}

/** AgentCore's synchronous request limit: 15 minutes. */
const REQUEST_TIMEOUT_MS = 15 * 60 * 1000;
/** The 100 MB request/response payload limit. */
export const MAX_PAYLOAD_BYTES = 100 * 1000 * 1000;

/** Runs one tool call on `session`. */
export async function runTool(
  backend: SandboxRuntime,
  session: Session,
  name: unknown,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ToolResult> {
  switch (name) {
    case "executeCommand":
      return executeCommand(backend, session, text(args.command, "command"), signal);
    case "writeFiles":
      return writeFiles(backend, session, args.content);
    case "readFiles":
      return readFiles(backend, session, paths(args.paths));
    case "removeFiles":
      return removeFiles(backend, session, paths(args.paths));
    default:
      throw validation(`not emulated: tool ${JSON.stringify(name)}`);
  }
}

async function executeCommand(
  backend: SandboxRuntime,
  session: Session,
  command: string,
  signal: AbortSignal,
): Promise<ToolResult> {
  const started = performance.now();
  const result = await backend.exec(
    session.handle,
    { shell: command, timeoutMs: REQUEST_TIMEOUT_MS, maxOutputBytes: MAX_PAYLOAD_BYTES },
    { signal, timeoutMs: REQUEST_TIMEOUT_MS + 5_000 },
  );
  const exitCode = result.exitCode ?? -1;
  return {
    content: [{ type: "text", text: result.stdout }],
    structuredContent: {
      stdout: result.stdout,
      stderr: result.stderr,
      exitCode,
      executionTime: (performance.now() - started) / 1000,
    },
    isError: false,
  };
}

async function writeFiles(backend: SandboxRuntime, session: Session, content: unknown): Promise<ToolResult> {
  if (!Array.isArray(content) || content.length === 0) throw validation("content must be a non-empty list");
  const files = content.map((entry: unknown) => {
    const { path, text: body, blob } = (entry ?? {}) as Record<string, unknown>;
    const relative = relativePath(path);
    if (typeof blob === "string") return { path: relative, content: Buffer.from(blob, "base64") };
    if (typeof body === "string") return { path: relative, content: body };
    throw validation(`content entry ${relative} needs text or blob`);
  });
  await backend.writeFiles(session.handle, files);
  return { content: [{ type: "text", text: `Successfully wrote ${files.length} file(s)` }], isError: false };
}

async function readFiles(backend: SandboxRuntime, session: Session, list: readonly string[]): Promise<ToolResult> {
  const blocks: Record<string, unknown>[] = [];
  for (const path of list) {
    let bytes: Uint8Array;
    try {
      bytes = await backend.readFile(session.handle, path);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return { content: [{ type: "text", text: `Failed to read ${path}: ${why}` }], isError: true };
    }
    blocks.push({
      type: "resource",
      resource: {
        type: "blob",
        uri: `file://${path}`,
        mimeType: "application/octet-stream",
        blob: Buffer.from(bytes).toString("base64"),
      },
    });
  }
  return { content: blocks, isError: false };
}

async function removeFiles(backend: SandboxRuntime, session: Session, list: readonly string[]): Promise<ToolResult> {
  if (!backend.remove) throw validation("not emulated: the backend cannot remove files");
  for (const path of list) await backend.remove(session.handle, path);
  return { content: [{ type: "text", text: `Removed ${list.length} path(s)` }], isError: false };
}

function text(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length === 0) throw validation(`${field} must be a non-empty string`);
  return value;
}

function paths(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw validation("paths must be a non-empty list");
  return value.map(relativePath);
}

/** A path the file tools take: relative to the working directory (absolute paths are refused, as AWS's helper does). */
function relativePath(value: unknown): string {
  const path = text(value, "path");
  if (path.startsWith("/")) throw validation(`path ${path} must be relative to the working directory`);
  return path;
}
