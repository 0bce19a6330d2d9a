import { posix } from "node:path";
import {
  type FileInput,
  normalizeWorkspacePath,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
} from "@sandport/core";
import type { FileDownloadResponse, FileOperationError, FileUploadResponse } from "deepagents";

/**
 * The framework's per-file error for a Sandport failure on one path, or
 * `undefined` when the failure is not about the path (the provider is down,
 * a deadline passed): those propagate as errors rather than pass for a bad path.
 * `INVALID_REQUEST` is `is_directory` when the path is a directory (asked of
 * `stat` where the runtime has it), else `invalid_path`.
 */
async function fileError<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
  path: string,
  error: unknown,
): Promise<FileOperationError | undefined> {
  if (SandportError.hasCode(error, "NOT_FOUND")) return "file_not_found";
  if (!SandportError.hasCode(error, "INVALID_REQUEST")) return undefined;
  if (typeof runtime.stat === "function") {
    try {
      if ((await runtime.stat(handle, path)).kind === "directory") return "is_directory";
    } catch {
      // Not a path stat can see: it stays invalid.
    }
  }
  return "invalid_path";
}

/**
 * Writes files, reporting per file; relative paths resolve against `base`.
 * Paths outside the workspace are `invalid_path` without a call; the rest go
 * in one `writeFiles` call, and only if that fails are they written one by
 * one to say which failed.
 */
export async function uploadFiles<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
  base: string,
  files: Array<[string, Uint8Array]>,
): Promise<FileUploadResponse[]> {
  const errors = new Map<number, FileOperationError>();
  const valid: { index: number; file: FileInput }[] = [];
  files.forEach(([path, content], index) => {
    try {
      const absolute = posix.resolve(base, path);
      normalizeWorkspacePath(absolute, { root: runtime.workspaceRoot, provider: runtime.provider });
      valid.push({ index, file: { path: absolute, content } });
    } catch {
      errors.set(index, "invalid_path");
    }
  });
  if (valid.length > 0) {
    try {
      await runtime.writeFiles(
        handle,
        valid.map(({ file }) => file),
      );
    } catch {
      // One bad file fails the batch: write them one by one to say which (a write is idempotent).
      for (const { index, file } of valid) {
        try {
          await runtime.writeFiles(handle, [file]);
        } catch (error) {
          const code = await fileError(runtime, handle, file.path, error);
          if (code === undefined) throw error;
          errors.set(index, code);
        }
      }
    }
  }
  return files.map(([path], index) => ({ path, error: errors.get(index) ?? null }));
}

/**
 * Reads files, reporting per file (relative paths resolve against `base`):
 * the bytes, or the framework's error value with `content: null`.
 */
export async function downloadFiles<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
  base: string,
  paths: string[],
): Promise<FileDownloadResponse[]> {
  const responses: FileDownloadResponse[] = [];
  for (const path of paths) {
    const absolute = posix.resolve(base, path);
    try {
      responses.push({ path, content: await runtime.readFile(handle, absolute), error: null });
    } catch (error) {
      const code = await fileError(runtime, handle, absolute, error);
      if (code === undefined) throw error;
      responses.push({ path, content: null, error: code });
    }
  }
  return responses;
}
