import { type FileInput, normalizeWorkspacePath, type OpOptions, toSandboxPath, validateFiles } from "@sandport/core";
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
import { PROVIDER } from "./handle.js";
import type { ModalFilesystem, ModalSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

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
export async function writeFiles(
  context: ModalContext,
  handle: unknown,
  files: readonly FileInput[],
  op?: OpOptions,
): Promise<void> {
  const root = context.options.workspaceRoot;
  const valid = validateFiles(files, { root, provider: PROVIDER });
  // Each written path's parent must stay inside, and so must the file if it is a link.
  const targets = [...new Set(valid.map((file) => file.path))].map((relative) => ({ relative, followFinal: true }));
  return context.onInstance(handle, op, "writeFiles", context.options.timeouts.fileMs, async (sandbox, call, id) => {
    await guard(context, id, sandbox, call, targets);
    for (let start = 0; start < valid.length; start += WRITES_AT_ONCE) {
      const batch = valid.slice(start, start + WRITES_AT_ONCE);
      await Promise.all(
        batch.map((file) => sandbox.filesystem.writeBytes(file.content, toSandboxPath(root, file.path))),
      );
    }
    const modes = modesToSet(valid, WRITTEN_MODE);
    if (modes.size === 0) return;
    const result = await runScript(context.options, sandbox, chmodScript(modes), call);
    if (result.exitCode !== 0) throw chmodFailure(PROVIDER, id, result.exitCode, result.stderr);
  });
}

/** Reads one file's bytes exactly. A missing file rejects `NOT_FOUND`. */
export function readFile(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<Uint8Array> {
  return onPath(context, handle, op, "readFile", { path, root: false, followFinal: true }, (files, target) =>
    files.readBytes(target),
  );
}

/** Which path a file operation acts on, and how. */
export interface PathTarget {
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
export async function onPath<T>(
  context: ModalContext,
  handle: unknown,
  op: OpOptions | undefined,
  operation: string,
  target: PathTarget,
  work: (files: ModalFilesystem, absolute: string) => Promise<T>,
): Promise<T> {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(target.path, { root, allowRoot: target.root, provider: PROVIDER });
  const absolute = toSandboxPath(root, relative);
  const site = { operation, path: absolute };
  return context.onInstance(handle, op, site, context.options.timeouts.fileMs, async (sandbox, call, sandboxId) => {
    await guard(context, sandboxId, sandbox, call, [{ relative, followFinal: target.followFinal }]);
    return work(sandbox.filesystem, absolute);
  });
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
  if (context.known.isPristine(sandboxId)) return;
  const result = await runScript(context.options, sandbox, symlinkGuardScript(paths), call);
  checkSymlinkGuard(paths, result, PROVIDER);
}
