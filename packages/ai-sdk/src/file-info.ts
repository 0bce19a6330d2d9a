import { type FileInfo, invalidRequest, whenFound } from "@sandport/core";
import type { PathRequest } from "./files.js";
import { unsupportedFunctionality } from "./internal/unsupported.js";
import { opOptions, resolvePath, type SessionContext } from "./session-context.js";

/** What `stat` reports (the AI SDK's `SandboxFileStat`). */
export interface SessionFileStat {
  type: "file" | "directory" | "other";
  size: number;
}

/** One entry of `listDirectory` (the AI SDK's `SandboxDirectoryEntry`). */
export interface SessionDirectoryEntry {
  name: string;
  type: "file" | "directory" | "symlink" | "other";
}

/**
 * `stat`, following symbolic links as the AI SDK asks: the port's `stat`
 * reports a link as itself, so a link is followed inside the sandbox with
 * `stat -L` (a dangling link is `null`, like a missing path).
 */
export async function statPath(context: SessionContext, request: PathRequest): Promise<SessionFileStat | null> {
  const info = await lookup(context, "stat", request);
  if (info === null) return null;
  if (info.kind !== "symlink")
    return { type: info.kind === "file" || info.kind === "directory" ? info.kind : "other", size: info.size };
  const path = resolvePath(context, request.path);
  const result = await context.runtime.exec(
    context.handle,
    { argv: ["stat", "-L", "-c", "%s %F", "--", path] },
    opOptions(request.abortSignal),
  );
  if (result.exitCode !== 0) return null;
  const [size, ...kind] = result.stdout.trim().split(" ");
  const type = kind.join(" ");
  return {
    type: type === "directory" ? "directory" : type.startsWith("regular") ? "file" : "other",
    size: Number(size),
  };
}

/** `listDirectory`: the entries, or `null` when the directory does not exist; rejects on a file. */
export async function listDirectory(
  context: SessionContext,
  request: PathRequest,
): Promise<SessionDirectoryEntry[] | null> {
  const { runtime } = context;
  if (!runtime.listDir) throw await unsupportedFunctionality(runtime.provider, "listDirectory", "listDir");
  const path = resolvePath(context, request.path);
  const entries = await whenFound(runtime.listDir(context.handle, path, opOptions(request.abortSignal)));
  return entries?.map((entry) => ({ name: entry.name, type: entry.kind })) ?? null;
}

/** `deleteFile`: `true` once deleted, `false` when absent; a directory is refused (`INVALID_REQUEST`). */
export async function deleteFile(context: SessionContext, request: PathRequest): Promise<boolean> {
  const { runtime } = context;
  if (!runtime.remove) throw await unsupportedFunctionality(runtime.provider, "deleteFile", "remove");
  const info = await lookup(context, "deleteFile", request);
  if (info === null) return false;
  if (info.kind === "directory") throw invalidRequest(`deleteFile: ${request.path} is a directory`);
  await runtime.remove(context.handle, resolvePath(context, request.path), opOptions(request.abortSignal));
  return true;
}

/** The port's `stat` of a path (a link as itself), or `null` when it does not exist. */
async function lookup(context: SessionContext, member: string, request: PathRequest): Promise<FileInfo | null> {
  const { runtime } = context;
  if (!runtime.stat) throw await unsupportedFunctionality(runtime.provider, member, "stat");
  const path = resolvePath(context, request.path);
  return (await whenFound(runtime.stat(context.handle, path, opOptions(request.abortSignal)))) ?? null;
}
