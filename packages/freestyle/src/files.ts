import {
  type FileInput,
  normalizeWorkspacePath,
  type OpOptions,
  quoteShellArg,
  retry,
  toSandboxPath,
  validateFiles,
} from "@sandport/core";
import { type CallBudget, checkSymlinkGuard, type GuardedPath, symlinkGuardScript } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { mapFreestyleError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { FreestyleFilesystem } from "./internal/sdk-types.js";
import { fromHome } from "./options.js";
import { runScript } from "./run-script.js";

/** How many file requests of one call are in flight at once (the API has no batch upload). */
const FILE_CONCURRENCY = 8;
/** Retries of one file request: each is safe to repeat (a whole-file write, a read, a mkdir, a remove). */
const FILE_RETRY = { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 2_000 } as const;

/**
 * Writes every file, each as raw bytes in its own `PUT fs/write` with its mode
 * (the API has no batch), at most 8 at a time, after validating every path.
 * Freestyle writes each file atomically and creates its parent directories.
 * A failure can leave some of the files written.
 */
export async function writeFiles(
  context: FreestyleContext,
  handle: unknown,
  files: readonly FileInput[],
  op?: OpOptions,
): Promise<void> {
  const { workspaceRoot } = context.options;
  const valid = validateFiles(files, { root: workspaceRoot, provider: PROVIDER });
  return context.onOwned(handle, op, "writeFiles", context.options.timeouts.fileMs, async (vmId, call) => {
    if (valid.length === 0) return;
    await guard(
      context,
      vmId,
      call,
      valid.map((file) => ({ relative: file.path, followFinal: true })),
    );
    await eachLimited(valid, FILE_CONCURRENCY, (file) => {
      const path = toSandboxPath(workspaceRoot, file.path);
      return fileCall(context, vmId, "writeFiles", path, call, (fs) =>
        fs.writeFile(path, file.content, { mode: file.mode, signal: call.signal }),
      );
    });
  });
}

/** Reads one file's bytes exactly (`GET fs/read`). A missing file rejects `NOT_FOUND`. */
export function readFile(
  context: FreestyleContext,
  handle: unknown,
  path: string,
  op?: OpOptions,
): Promise<Uint8Array> {
  return onPath(context, handle, op, "readFile", { path, root: false, followFinal: true }, (target, call) =>
    fileCall(context, target.vmId, "readFile", target.absolute, call, (fs) =>
      fs.readFile(target.absolute, { signal: call.signal }),
    ),
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

/** A validated path of one VM. */
export interface ResolvedTarget {
  readonly vmId: string;
  /** Workspace-relative. */
  readonly relative: string;
  /** The VM path the file API takes. */
  readonly absolute: string;
}

/**
 * Runs one single-path file operation: the path validated against the
 * workspace (before any request), ownership, the symlink guard, then `work`.
 */
export async function onPath<T>(
  context: FreestyleContext,
  handle: unknown,
  op: OpOptions | undefined,
  operation: string,
  target: PathTarget,
  work: (target: ResolvedTarget, call: CallBudget & { readonly signal: AbortSignal }) => Promise<T>,
): Promise<T> {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(target.path, { root, allowRoot: target.root, provider: PROVIDER });
  const absolute = toSandboxPath(root, relative);
  const site = { operation, path: absolute };
  return context.onOwned(handle, op, site, context.options.timeouts.fileMs, async (vmId, call) => {
    await guard(context, vmId, call, [{ relative, followFinal: target.followFinal }]);
    return work({ vmId, relative, absolute }, call);
  });
}

/**
 * One file request on `path`, retried on retryable errors (every file request
 * is safe to repeat); failures mapped with the path named.
 */
export function fileCall<T>(
  context: FreestyleContext,
  vmId: string,
  operation: string,
  path: string,
  call: CallBudget & { readonly signal: AbortSignal },
  work: (fs: FreestyleFilesystem) => Promise<T>,
): Promise<T> {
  return retry(
    async () => {
      try {
        return await work((await context.vm(vmId, call)).fs);
      } catch (error) {
        throw mapFreestyleError(error, { operation, sandboxId: vmId, path });
      }
    },
    { policy: { ...FILE_RETRY, budgetMs: call.remainingMs() }, signal: call.signal },
  );
}

/**
 * Refuses (`INVALID_REQUEST`) paths that resolve outside the workspace through
 * a symlink. Freestyle's file API follows symlinks, so this costs one command
 * (`symlinkGuardScript`) per file call, except in a VM this runtime launched
 * and in which no command has run yet: only this runtime's writes have
 * touched it, and those never make symlinks.
 */
async function guard(
  context: FreestyleContext,
  vmId: string,
  call: CallBudget & { readonly signal: AbortSignal },
  paths: readonly GuardedPath[],
): Promise<void> {
  if (context.known.isPristine(vmId)) return;
  const workspace = quoteShellArg(fromHome(context.options, context.options.workspaceRoot));
  const result = await runScript(context, vmId, `cd -- ${workspace} && ${symlinkGuardScript(paths)}`, call);
  checkSymlinkGuard(paths, result, PROVIDER);
}

/** Runs `work` on every item, at most `limit` at once; rejects with the first failure once the rest have settled. */
export async function eachLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
