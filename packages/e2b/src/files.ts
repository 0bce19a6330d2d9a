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
import type { E2BContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

/** The mode E2B gives a written file; others are applied with one `chmod` command (run in the workspace) afterwards. */
const WRITTEN_MODE = 0o644;

/**
 * Writes all files in one request (the SDK's batched multipart upload), after
 * validating every path. Parent directories are created by E2B. Files asking
 * for a mode other than `0o644` get it from one `chmod` command.
 */
export async function writeFiles(
  context: E2BContext,
  handle: unknown,
  files: readonly FileInput[],
  op?: OpOptions,
): Promise<void> {
  const { workspaceRoot } = context.options;
  const valid = validateFiles(files, { root: workspaceRoot, provider: PROVIDER });
  return context.onHandle(handle, op, "writeFiles", context.options.timeouts.fileMs, async (id, call) => {
    if (valid.length === 0) return;
    const sandbox = await context.instance(id, "writeFiles", call);
    await guard(
      context,
      id,
      sandbox,
      call,
      valid.map((file) => ({ relative: file.path, followFinal: true })),
    );
    const entries = valid.map((file) => ({ path: toSandboxPath(workspaceRoot, file.path), data: bytes(file.content) }));
    await sandbox.files.write(entries, { requestTimeoutMs: call.remainingMs(), signal: call.signal });
    const modes = modesToSet(valid, WRITTEN_MODE);
    if (modes.size === 0) return;
    const result = await runScript(context, id, sandbox, chmodScript(modes), call);
    if (result.exitCode !== 0) throw chmodFailure(PROVIDER, id, result.exitCode, result.stderr);
  });
}

/** Reads one file's bytes exactly. A missing file rejects `NOT_FOUND`. */
export function readFile(context: E2BContext, handle: unknown, path: string, op?: OpOptions): Promise<Uint8Array> {
  return onPath(
    context,
    handle,
    op,
    "readFile",
    { path, root: false, followFinal: true },
    async (files, target, call) => {
      const read = await files.read(target, { ...call, format: "bytes" });
      return read instanceof Uint8Array ? read : new Uint8Array(read);
    },
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

/** SDK request options of one file call. */
interface RequestOptions {
  readonly requestTimeoutMs: number;
  readonly signal: AbortSignal;
}

/**
 * Runs one single-path file operation: the path validated against the
 * workspace, the symlink guard, then `work` with the absolute path.
 */
export async function onPath<T>(
  context: E2BContext,
  handle: unknown,
  op: OpOptions | undefined,
  operation: string,
  target: PathTarget,
  work: (files: E2BSandbox["files"], absolute: string, request: RequestOptions) => Promise<T>,
): Promise<T> {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(target.path, { root, allowRoot: target.root, provider: PROVIDER });
  const absolute = toSandboxPath(root, relative);
  const site = { operation, path: absolute };
  return context.onInstance(handle, op, site, context.options.timeouts.fileMs, async (sandbox, call, sandboxId) => {
    await guard(context, sandboxId, sandbox, call, [{ relative, followFinal: target.followFinal }]);
    return work(sandbox.files, absolute, { requestTimeoutMs: call.remainingMs(), signal: call.signal });
  });
}

/**
 * Refuses (`INVALID_REQUEST`) paths that resolve outside the workspace through
 * a symlink. E2B's file API follows symlinks, so this costs one command
 * (`symlinkGuardScript`) per file call, except in a sandbox this runtime
 * launched and in which no command has run yet: only this runtime's writes
 * have touched it, and those never make symlinks.
 */
async function guard(
  context: E2BContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  call: OperationCall,
  paths: readonly GuardedPath[],
): Promise<void> {
  if (context.known.isPristine(sandboxId)) return;
  const result = await runScript(context, sandboxId, sandbox, symlinkGuardScript(paths), call);
  checkSymlinkGuard(paths, result, PROVIDER);
}

function bytes(content: Uint8Array): ArrayBuffer {
  return content.buffer.slice(content.byteOffset, content.byteOffset + content.byteLength) as ArrayBuffer;
}
