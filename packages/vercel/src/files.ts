import { SandportError, toSandboxPath } from "@sandport/core";
import { guardedFiles, INLINE_READ_BYTES, type WorkspaceRunner } from "@sandport/core/adapter";
import type { VercelContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

/**
 * How the symlink guard runs (`sh -c` in the workspace): Vercel's file API
 * follows symlinks, so every file call outside a pristine sandbox first
 * resolves its paths with one command.
 */
const inWorkspace: WorkspaceRunner<VercelContext, VercelSandbox> = (
  context,
  script,
  { instance, call },
  maxOutputBytes,
) => runScript(instance, ["sh", "-c", script], context.options, call, maxOutputBytes);

/**
 * `writeFiles` writes all files in one request (the SDK's tar.gz upload,
 * modes included), after validating every path. Parent directories are
 * created by Vercel. `readFile` reads one file's bytes exactly; a missing
 * file rejects `NOT_FOUND`.
 */
export const { writeFiles, readFile } = guardedFiles<VercelContext, VercelSandbox>({
  inWorkspace,
  commandRead: { inlineBytes: INLINE_READ_BYTES },
  write: async (context, { instance, files, call }) => {
    const root = context.options.workspaceRoot;
    const entries = files.map((file) => ({
      path: toSandboxPath(root, file.path),
      content: file.content,
      mode: file.mode,
    }));
    await instance.writeFiles(entries, { signal: call.signal });
  },
  read: async (_context, { sandboxId, instance, absolute, call }) => {
    const bytes = await instance.readFileToBuffer({ path: absolute }, { signal: call.signal });
    if (bytes === null) throw missingFile(sandboxId, absolute);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  },
});

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
