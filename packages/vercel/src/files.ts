import {
  type FileInput,
  normalizeWorkspacePath,
  type OpOptions,
  SandportError,
  toSandboxPath,
  validateFiles,
} from "@sandport/core";
import { checkSymlinkGuard, type GuardedPath, type OperationCall, symlinkGuardScript } from "@sandport/core/adapter";
import type { VercelContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

/**
 * Writes all files in one request (the SDK's tar.gz upload, modes included),
 * after validating every path. Parent directories are created by Vercel.
 */
export async function writeFiles(
  context: VercelContext,
  handle: unknown,
  files: readonly FileInput[],
  op?: OpOptions,
): Promise<void> {
  const { workspaceRoot } = context.options;
  const valid = validateFiles(files, { root: workspaceRoot, provider: PROVIDER });
  return context.onInstance(handle, op, "writeFiles", context.options.timeouts.fileMs, async (sandbox, call, name) => {
    if (valid.length === 0) return;
    const targets = valid.map((file) => ({ relative: file.path, followFinal: true }));
    await guard(context, name, sandbox, call, targets);
    const entries = valid.map((file) => ({
      path: toSandboxPath(workspaceRoot, file.path),
      content: file.content,
      mode: file.mode,
    }));
    await sandbox.writeFiles(entries, { signal: call.signal });
  });
}

/** Reads one file's bytes exactly. A missing file rejects `NOT_FOUND`. */
export async function readFile(
  context: VercelContext,
  handle: unknown,
  path: string,
  op?: OpOptions,
): Promise<Uint8Array> {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(path, { root, allowRoot: false, provider: PROVIDER });
  const absolute = toSandboxPath(root, relative);
  const site = { operation: "readFile", path: absolute };
  return context.onInstance(handle, op, site, context.options.timeouts.fileMs, async (sandbox, call, name) => {
    await guard(context, name, sandbox, call, [{ relative, followFinal: true }]);
    const bytes = await sandbox.readFileToBuffer({ path: absolute }, { signal: call.signal });
    if (bytes === null) throw missingFile(name, absolute);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  });
}

/**
 * Refuses (`INVALID_REQUEST`) paths that resolve outside the workspace through
 * a symlink. Vercel's file API follows symlinks, so this costs one command
 * (`symlinkGuardScript`) per file call, except in a sandbox this runtime
 * launched and in which no command has run yet: only this runtime's writes
 * have touched it, and those never make symlinks.
 */
async function guard(
  context: VercelContext,
  name: string,
  sandbox: VercelSandbox,
  call: OperationCall,
  paths: readonly GuardedPath[],
): Promise<void> {
  if (context.known.isPristine(name)) return;
  const result = await runScript(sandbox, ["sh", "-c", symlinkGuardScript(paths)], context.options.workspaceRoot, call);
  checkSymlinkGuard(paths, result, PROVIDER);
}

/** `NOT_FOUND` for a file that does not exist (Vercel's read answers 404, which the SDK turns into `null`). */
function missingFile(name: string, path: string): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: PROVIDER,
    retryable: false,
    message: `vercel sandbox ${name} has no file ${path}`,
    details: { sandboxId: name, path },
  });
}
