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
import { type DaytonaContext, seconds } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { repeatable, runScript } from "./run-script.js";

/** The mode Daytona gives an uploaded file; others are applied with one `chmod` command afterwards. */
const WRITTEN_MODE = 0o644;

/**
 * Writes all files in one request (the SDK's multipart bulk upload; Daytona
 * creates parent directories), after validating every path. Files asking for
 * a mode other than `0o644` get it from one `chmod` command.
 */
export async function writeFiles(
  context: DaytonaContext,
  handle: unknown,
  files: readonly FileInput[],
  op?: OpOptions,
): Promise<void> {
  const { workspaceRoot } = context.options;
  const valid = validateFiles(files, { root: workspaceRoot, provider: PROVIDER });
  return context.onInstance(handle, op, "writeFiles", context.options.timeouts.fileMs, async (sandbox, call, id) => {
    if (valid.length === 0) return;
    const site = { operation: "writeFiles", sandboxId: id };
    await guard(
      context,
      sandbox,
      id,
      call,
      valid.map((file) => ({ relative: file.path, followFinal: true })),
    );
    const uploads = valid.map((file) => ({
      source: Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength),
      destination: toSandboxPath(workspaceRoot, file.path),
    }));
    await repeatable(call, site, () => sandbox.fs.uploadFiles(uploads, seconds(call.remainingMs())));
    const modes = modesToSet(valid, WRITTEN_MODE);
    if (modes.size === 0) return;
    const result = await runScript(sandbox, chmodScript(modes), workspaceRoot, call, site);
    if (result.exitCode !== 0) throw chmodFailure(PROVIDER, id, result.exitCode, result.output);
  });
}

/** Reads one file's bytes exactly (the SDK's download, one request). A missing file rejects `NOT_FOUND`. */
export async function readFile(
  context: DaytonaContext,
  handle: unknown,
  path: string,
  op?: OpOptions,
): Promise<Uint8Array> {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(path, { root, allowRoot: false, provider: PROVIDER });
  const absolute = toSandboxPath(root, relative);
  const where = { operation: "readFile", path: absolute };
  return context.onInstance(handle, op, where, context.options.timeouts.fileMs, async (sandbox, call, id) => {
    await guard(context, sandbox, id, call, [{ relative, followFinal: true }]);
    const site = { ...where, sandboxId: id };
    const data = await repeatable(call, site, () => sandbox.fs.downloadFile(absolute, seconds(call.remainingMs())));
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  });
}

/**
 * Refuses (`INVALID_REQUEST`) paths that resolve outside the workspace
 * through a symlink. Daytona's file API follows symlinks, so this costs one
 * command (`symlinkGuardScript`) per call, except in a sandbox this runtime
 * launched and in which no command has run yet: only this runtime's writes
 * have touched it, and those never make symlinks.
 */
async function guard(
  context: DaytonaContext,
  sandbox: DaytonaSandbox,
  sandboxId: string,
  call: OperationCall,
  paths: readonly GuardedPath[],
): Promise<void> {
  if (context.known.isPristine(sandboxId)) return;
  const site = { operation: "symlink guard", sandboxId };
  const result = await runScript(sandbox, symlinkGuardScript(paths), context.options.workspaceRoot, call, site);
  checkSymlinkGuard(paths, { exitCode: result.exitCode, stdout: result.output, stderr: result.output }, PROVIDER);
}
