import {
  type FileInfo,
  type FileInput,
  type FileKind,
  normalizeWorkspacePath,
  type OpOptions,
  quoteArgv,
  SandportError,
  toSandboxPath,
  validateFiles,
  withDeadline,
} from "@sandport/core";
import { isNotFound, mapE2BError } from "./errors.js";
import { runCommand } from "./exec.js";
import { assertInsideWorkspace, type GuardedPath } from "./guard.js";
import type { CallTiming, RuntimeContext } from "./internal/context.js";
import type { E2BEntryInfo, E2BSandbox } from "./internal/sdk-types.js";
import { sandboxIdOf } from "./lifecycle.js";
import { PROVIDER } from "./options.js";
import type { E2BHandle } from "./ownership.js";

/** The mode E2B gives a written file; others are applied with one `chmod` command (run in the workspace) afterwards. */
const WRITTEN_MODE = 0o644;

/**
 * Writes all files in one request (the SDK's batched multipart upload), after
 * validating every path. Parent directories are created by the provider.
 * Files asking for a mode other than `0o644` get it from one `chmod` command.
 */
export async function writeSandboxFiles(
  context: RuntimeContext,
  handle: E2BHandle,
  files: readonly FileInput[],
  op?: OpOptions,
): Promise<void> {
  const sandboxId = sandboxIdOf(handle, "writeFiles");
  const { workspaceRoot } = context.options;
  const valid = validateFiles(files, { root: workspaceRoot, provider: PROVIDER });
  if (valid.length === 0) return;
  const chmods = new Map<number, string[]>();
  valid.forEach((file, index) => {
    if (files[index]?.mode === undefined || file.mode === WRITTEN_MODE) return;
    chmods.set(file.mode, [...(chmods.get(file.mode) ?? []), file.path]);
  });
  const guarded = valid.map((file) => ({ relative: file.path, followFinal: true }));
  await fileCall(context, "writeFiles", sandboxId, op, guarded, async (sandbox, timing) => {
    await sandbox.files.write(
      valid.map((file) => ({ path: toSandboxPath(workspaceRoot, file.path), data: toArrayBuffer(file.content) })),
      timing,
    );
    if (chmods.size > 0) await applyModes(context, sandboxId, sandbox, chmods, timing);
  });
}

/** Reads one file's bytes exactly. A missing file rejects `NOT_FOUND`. */
export async function readSandboxFile(
  context: RuntimeContext,
  handle: E2BHandle,
  path: string,
  op?: OpOptions,
): Promise<Uint8Array> {
  const sandboxId = sandboxIdOf(handle, "readFile");
  const { relative, absolute } = resolvePath(context, path, false);
  const guarded = [{ relative, followFinal: true }];
  return fileCall(
    context,
    "readFile",
    sandboxId,
    op,
    guarded,
    async (sandbox, timing) => {
      const bytes = await sandbox.files.read(absolute, { ...timing, format: "bytes" });
      return bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    },
    absolute,
  );
}

/** Entries of one directory (not recursive), with workspace-relative paths. */
export async function listSandboxDirectory(
  context: RuntimeContext,
  handle: E2BHandle,
  path: string,
  op?: OpOptions,
): Promise<FileInfo[]> {
  const sandboxId = sandboxIdOf(handle, "listDir");
  const { relative, absolute } = resolvePath(context, path, true);
  const guarded = [{ relative, followFinal: true }];
  return fileCall(
    context,
    "listDir",
    sandboxId,
    op,
    guarded,
    async (sandbox, timing) => {
      const entries = await sandbox.files.list(absolute, { ...timing, depth: 1 });
      return entries.map((entry) => toFileInfo(context.options.workspaceRoot, entry));
    },
    absolute,
  );
}

/** One entry's metadata; a symlink is reported as itself. A missing path rejects `NOT_FOUND`. */
export async function statSandboxPath(
  context: RuntimeContext,
  handle: E2BHandle,
  path: string,
  op?: OpOptions,
): Promise<FileInfo> {
  const sandboxId = sandboxIdOf(handle, "stat");
  const { relative, absolute } = resolvePath(context, path, true);
  const guarded = [{ relative, followFinal: false }];
  return fileCall(
    context,
    "stat",
    sandboxId,
    op,
    guarded,
    async (sandbox, timing) => {
      return toFileInfo(context.options.workspaceRoot, await sandbox.files.getInfo(absolute, timing));
    },
    absolute,
  );
}

/** Creates a directory and its parents; succeeds when it already exists. */
export async function makeSandboxDirectory(
  context: RuntimeContext,
  handle: E2BHandle,
  path: string,
  op?: OpOptions,
): Promise<void> {
  const sandboxId = sandboxIdOf(handle, "mkdir");
  const { relative, absolute } = resolvePath(context, path, true);
  const guarded = [{ relative, followFinal: true }];
  await fileCall(
    context,
    "mkdir",
    sandboxId,
    op,
    guarded,
    async (sandbox, timing) => {
      await sandbox.files.makeDir(absolute, timing);
    },
    absolute,
  );
}

/** Removes a file or a directory tree; succeeds when it is already absent. The workspace root itself is refused. */
export async function removeSandboxPath(
  context: RuntimeContext,
  handle: E2BHandle,
  path: string,
  op?: OpOptions,
): Promise<void> {
  const sandboxId = sandboxIdOf(handle, "remove");
  const { relative, absolute } = resolvePath(context, path, false);
  const guarded = [{ relative, followFinal: false }];
  await fileCall(
    context,
    "remove",
    sandboxId,
    op,
    guarded,
    async (sandbox, timing) => {
      try {
        await sandbox.files.remove(absolute, timing);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
    absolute,
  );
}

/**
 * Runs one file operation under its deadline on a connected sandbox, after
 * the symlink guard, mapping provider errors.
 */
async function fileCall<T>(
  context: RuntimeContext,
  operation: string,
  sandboxId: string,
  op: OpOptions | undefined,
  guarded: readonly GuardedPath[],
  work: (sandbox: E2BSandbox, timing: CallTiming) => Promise<T>,
  path?: string,
): Promise<T> {
  const requestTimeoutMs = op?.timeoutMs ?? context.options.timeouts.fileMs;
  return withDeadline(
    op,
    { provider: PROVIDER, operation, defaultTimeoutMs: context.options.timeouts.fileMs },
    async (signal) => {
      const timing = { requestTimeoutMs, signal };
      const sandbox = await context.sandbox(sandboxId, operation, timing);
      await assertInsideWorkspace(context, sandboxId, sandbox, guarded, timing);
      try {
        return await work(sandbox, timing);
      } catch (error) {
        throw mapE2BError(error, { operation, sandboxId, path });
      }
    },
  );
}

async function applyModes(
  context: RuntimeContext,
  sandboxId: string,
  sandbox: E2BSandbox,
  chmods: ReadonlyMap<number, readonly string[]>,
  timing: CallTiming,
): Promise<void> {
  const script = [...chmods]
    .map(([mode, paths]) => `chmod ${mode.toString(8).padStart(4, "0")} -- ${quoteArgv(paths)}`)
    .join(" && ");
  const result = await runCommand(
    context,
    sandboxId,
    sandbox,
    {
      command: script,
      cwd: context.options.workspaceRoot,
      env: {},
      timeoutMs: timing.requestTimeoutMs,
      maxOutputBytes: 64 * 1024,
    },
    timing.signal ?? new AbortController().signal,
  );
  if (result.exitCode !== 0) {
    throw new SandportError({
      code: "UNEXPECTED",
      provider: PROVIDER,
      retryable: false,
      message: `e2b wrote the files but could not set their modes: ${result.stderr.trim() || `exit ${result.exitCode}`}`,
      details: { sandboxId, exitCode: result.exitCode },
    });
  }
}

function resolvePath(context: RuntimeContext, path: string, allowRoot: boolean) {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(path, { root, allowRoot, provider: PROVIDER });
  return { relative, absolute: toSandboxPath(root, relative) };
}

/** Translates an E2B entry into a port `FileInfo`. */
export function toFileInfo(workspaceRoot: string, entry: E2BEntryInfo): FileInfo {
  const modifiedAt = entry.modifiedTime instanceof Date ? entry.modifiedTime : undefined;
  return {
    name: entry.name,
    path: relativeToRoot(workspaceRoot, entry.path),
    kind: kindOf(entry),
    size: Number(entry.size) || 0,
    ...(typeof entry.mode === "number" ? { mode: entry.mode & 0o7777 } : {}),
    ...(modifiedAt && !Number.isNaN(modifiedAt.getTime()) ? { modifiedAt: modifiedAt.toISOString() } : {}),
  };
}

function kindOf(entry: E2BEntryInfo): FileKind {
  if (entry.symlinkTarget || entry.type === "symlink") return "symlink";
  if (entry.type === "dir") return "directory";
  if (entry.type === "file") return "file";
  return "other";
}

function relativeToRoot(root: string, absolute: string): string {
  if (absolute === root) return "";
  return absolute.startsWith(`${root}/`) ? absolute.slice(root.length + 1) : absolute;
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
