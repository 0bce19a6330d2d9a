import {
  type FileInfo,
  type FileInput,
  type FileKind,
  normalizeWorkspacePath,
  type OpOptions,
  toSandboxPath,
  validateFiles,
} from "@sandport/core";
import {
  checkSymlinkGuard,
  chmodFailure,
  chmodScript,
  type GuardedPath,
  modesToSet,
  type OperationCall,
  symlinkGuardScript,
} from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { runScript } from "./exec.js";
import { PROVIDER } from "./handle.js";
import type { ModalFileInfo, ModalFilesystem, ModalSandbox } from "./internal/sdk-types.js";

/** The mode Modal's file helper gives a written file; others are applied with one `chmod` afterwards. */
const WRITTEN_MODE = 0o644;
/** How many files are written at once (each write is its own exec of the helper). */
const WRITES_AT_ONCE = 4;

/**
 * Writes every file through the SDK's file helper (one exec, its stdin
 * stream and its exit per file; a few at a time), after validating every
 * path. The helper creates parent directories. Files asking for a mode other
 * than `0o644` get it from one `chmod` command afterwards.
 */
export function writeFiles(
  context: ModalContext,
  handle: unknown,
  files: readonly FileInput[],
  op?: OpOptions,
): Promise<void> {
  const root = context.options.workspaceRoot;
  let valid: ReturnType<typeof validateFiles>;
  try {
    valid = validateFiles(files, { root, provider: PROVIDER });
  } catch (error) {
    return Promise.reject(error);
  }
  return context.onSandbox(handle, op, "writeFiles", context.options.timeouts.fileMs, async (sandbox, call, id) => {
    await guard(context, id, sandbox, call, [...new Set(valid.map((file) => file.path))].map(writeTarget));
    for (let start = 0; start < valid.length; start += WRITES_AT_ONCE) {
      await Promise.all(
        valid
          .slice(start, start + WRITES_AT_ONCE)
          .map((file) => sandbox.filesystem.writeBytes(file.content, toSandboxPath(root, file.path))),
      );
    }
    const modes = modesToSet(valid, WRITTEN_MODE);
    if (modes.size === 0) return;
    const result = await runScript(context, sandbox, chmodScript(modes), call);
    if (result.exitCode !== 0) throw chmodFailure(PROVIDER, id, result.exitCode, result.stderr);
  });
}

/** Reads one file's bytes exactly. A missing file rejects `NOT_FOUND`. */
export function readFile(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<Uint8Array> {
  return onPath(context, handle, op, "readFile", { path, root: false, followFinal: true }, (files, target) =>
    files.readBytes(target),
  );
}

/** Entries of one directory (not recursive), with workspace-relative paths. */
export function listDir(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo[]> {
  return onPath(context, handle, op, "listDir", { path, root: true, followFinal: true }, async (files, target) =>
    (await files.listFiles(target)).map((entry) => toFileInfo(context.options.workspaceRoot, entry)),
  );
}

/** One entry's metadata; a symlink is reported as itself. A missing path rejects `NOT_FOUND`. */
export function stat(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo> {
  return onPath(context, handle, op, "stat", { path, root: true, followFinal: false }, async (files, target) =>
    toFileInfo(context.options.workspaceRoot, await files.stat(target)),
  );
}

/** Creates a directory and its parents; succeeds when it already exists. */
export function mkdir(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  return onPath(context, handle, op, "mkdir", { path, root: true, followFinal: true }, (files, target) =>
    files.makeDirectory(target, { createParents: true }),
  );
}

/** Removes a file or a directory tree; succeeds when it is already absent. The workspace root itself is refused. */
export function remove(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  return onPath(context, handle, op, "remove", { path, root: false, followFinal: false }, (files, target) =>
    files.remove(target, { recursive: true }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    }),
  );
}

/** Which path a file operation acts on, and how. */
interface PathTarget {
  readonly path: string;
  /** Whether the workspace root itself is allowed. */
  readonly root: boolean;
  /** See `GuardedPath.followFinal`. */
  readonly followFinal: boolean;
}

/**
 * Runs one single-path file operation: the path validated against the
 * workspace (before any request), the symlink guard, then `work` with the
 * absolute path.
 */
function onPath<T>(
  context: ModalContext,
  handle: unknown,
  op: OpOptions | undefined,
  operation: string,
  target: PathTarget,
  work: (files: ModalFilesystem, absolute: string) => Promise<T>,
): Promise<T> {
  const root = context.options.workspaceRoot;
  let relative: string;
  try {
    relative = normalizeWorkspacePath(target.path, { root, allowRoot: target.root, provider: PROVIDER });
  } catch (error) {
    return Promise.reject(error);
  }
  const absolute = toSandboxPath(root, relative);
  const site = { operation, path: absolute };
  return context.onSandbox(handle, op, site, context.options.timeouts.fileMs, async (sandbox, call, sandboxId) => {
    await guard(context, sandboxId, sandbox, call, [{ relative, followFinal: target.followFinal }]);
    return work(sandbox.filesystem, absolute);
  });
}

/** A written file's path as the guard checks it: its parent must stay inside, and so must the file if it is a link. */
function writeTarget(relative: string): GuardedPath {
  return { relative, followFinal: true };
}

/**
 * Refuses (`INVALID_REQUEST`) paths that resolve outside the workspace through
 * a symlink. Modal's file helper follows symlinks, so this costs one command
 * (`symlinkGuardScript`) per file call, except in a sandbox this runtime
 * launched and in which no command has run yet: only this runtime's writes
 * have touched it, and those never make symlinks.
 */
async function guard(
  context: ModalContext,
  sandboxId: string,
  sandbox: ModalSandbox,
  call: OperationCall,
  paths: readonly GuardedPath[],
): Promise<void> {
  if (context.isPristine(sandboxId)) return;
  const result = await runScript(context, sandbox, symlinkGuardScript(paths), call);
  checkSymlinkGuard(paths, result, PROVIDER);
}

/** Translates a Modal entry into a port `FileInfo`. */
function toFileInfo(workspaceRoot: string, entry: ModalFileInfo): FileInfo {
  const modified = new Date(entry.modifiedTime * 1000);
  return {
    name: entry.name,
    path: relativeToRoot(workspaceRoot, entry.path),
    kind: kindOf(entry),
    size: Number(entry.size) || 0,
    mode: entry.mode & 0o7777,
    ...(entry.modifiedTime > 0 && !Number.isNaN(modified.getTime()) ? { modifiedAt: modified.toISOString() } : {}),
  };
}

function kindOf(entry: ModalFileInfo): FileKind {
  if (entry.type === "symlink") return "symlink";
  if (entry.type === "directory") return "directory";
  if (entry.type === "file") return "file";
  return "other";
}

function relativeToRoot(root: string, absolute: string): string {
  if (absolute === root) return "";
  return absolute.startsWith(`${root}/`) ? absolute.slice(root.length + 1) : absolute;
}
