import { posix } from "node:path";
import { MAX_READ_BYTES, quoteShellArg, SandportError, toSandboxPath } from "@sandport/core";
import { guardedFiles, INLINE_READ_BYTES } from "@sandport/core/adapter";
import type { KubernetesContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { inWorkspace, runScript } from "./run-script.js";

/** How many files of one `writeFiles` are in flight at once (neither plane has a batch upload). */
const FILE_CONCURRENCY = 8;

/**
 * Whether a batch goes as one archive: on pod exec, where each file written
 * alone is one exec (one request, its bytes on stdin) and so is the archive,
 * from 2 files up. sandboxd writes each file with its own `PUT` (atomic,
 * with its mode) and keeps doing so.
 */
export function archiveWorthIt(files: number, _bytes: number, context: KubernetesContext): boolean {
  return context.options.dataPlane === "pod-exec" && files >= 2;
}

/**
 * `writeFiles` and `readFile`. With sandboxd: one `PUT /v1/files/{path}`
 * per file (raw bytes, atomic temp+rename, parents made, `?mode=` the
 * file's), one `GET` to read; paths are sent relative to sandboxd's root,
 * which is the workspace. With pod exec: two files or more are one command
 * whose stdin carries them all as one archive (the core's
 * `fileArchiveScript`: each file whole under a temporary name, its mode,
 * renamed); a single file is one command, its bytes on stdin (`cat` into a
 * temporary file, `chmod`, `mv` over the target: atomic too); a read is
 * `base64` of the file. A missing file is `NOT_FOUND`. Once a command has
 * run in the claim, a read is one guarded command that resolves the path in
 * the workspace and prints the file: any file over pod exec; up to 256 KiB
 * over sandboxd, which then downloads a larger one.
 */
export const { writeFiles, readFile } = guardedFiles<KubernetesContext, string>({
  inWorkspace,
  // Pod exec reads through base64 anyway: its guarded read command prints every file. sandboxd downloads large ones.
  commandRead: {
    inlineBytes: (context) => (context.options.dataPlane === "sandboxd" ? INLINE_READ_BYTES : MAX_READ_BYTES),
  },
  write: async (context, { sandboxId, instance, files, call }) => {
    await eachLimited(files, FILE_CONCURRENCY, async (file) => {
      if (context.options.dataPlane === "sandboxd") {
        await context
          .requireSandboxd("writeFiles")
          .writeFile(instance, file.path, file.content, file.mode, call)
          .catch((error: unknown) => {
            throw context.mapError(error, { operation: "writeFiles", sandboxId, path: file.path });
          });
        return;
      }
      const target = quoteShellArg(toSandboxPath(context.options.workspaceRoot, file.path));
      const temporary = quoteShellArg(
        posix.join(
          posix.dirname(toSandboxPath(context.options.workspaceRoot, file.path)),
          `.sandport-${Date.now()}-${Math.random().toString(36).slice(2)}`,
        ),
      );
      const script = [
        `mkdir -p -- "$(dirname -- ${target})"`,
        `cat > ${temporary}`,
        `chmod ${(file.mode & 0o7777).toString(8)} ${temporary}`,
        `mv -f -- ${temporary} ${target}`,
      ].join(" && ");
      const result = await runScript(context, sandboxId, instance, script, call, file.content);
      if (result.exitCode !== 0) throw failed(sandboxId, "writeFiles", file.path, result.stderr, result.exitCode);
    });
  },
  read: async (context, { sandboxId, instance, absolute, call, maxBytes }) => {
    if (context.options.dataPlane === "sandboxd") {
      const relative = posix.relative(context.options.workspaceRoot, absolute);
      return context
        .requireSandboxd("readFile")
        .readFile(instance, relative, call)
        .catch((error: unknown) => {
          throw context.mapError(error, { operation: "readFile", sandboxId, path: absolute });
        });
    }
    const path = quoteShellArg(absolute);
    // base64 is 4 characters per 3 bytes, in lines of 76: the script's output cap follows the read's.
    const encodedBytes = Math.ceil(maxBytes / 3) * 4;
    const cap = encodedBytes + Math.ceil(encodedBytes / 76) + 1024;
    const result = await runScript(
      context,
      sandboxId,
      instance,
      `[ -f ${path} ] || exit 66\nbase64 < ${path}`,
      call,
      undefined,
      cap,
    );
    if (result.exitCode === 66) {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: PROVIDER,
        retryable: false,
        message: `kubernetes readFile: ${absolute} does not exist in claim ${sandboxId}`,
        details: { operation: "readFile", sandboxId, path: absolute },
      });
    }
    if (result.truncated) {
      throw new SandportError({
        code: "OUTPUT_LIMIT",
        provider: PROVIDER,
        retryable: false,
        message: `kubernetes readFile: ${absolute} in claim ${sandboxId} is larger than maxBytes (${maxBytes})`,
        details: { operation: "readFile", sandboxId, path: absolute, maxBytes },
      });
    }
    if (result.exitCode !== 0) throw failed(sandboxId, "readFile", absolute, result.stderr, result.exitCode);
    return new Uint8Array(Buffer.from(result.stdout.replace(/\s+/g, ""), "base64"));
  },
  archive: {
    use: archiveWorthIt,
    run: (context, script, stdin, { sandboxId, instance, call }) =>
      runScript(context, sandboxId, instance, script, call, stdin),
  },
});

/** Runs `work` on every item, at most `limit` at once; rejects with the first failure once the rest have settled. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}

function failed(
  sandboxId: string,
  operation: string,
  path: string,
  stderr: string,
  exitCode: number | null,
): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `kubernetes ${operation} of ${path} failed in claim ${sandboxId}: ${stderr.trim() || `exit ${exitCode}`}`,
    details: { operation, sandboxId, path, exitCode },
  });
}
