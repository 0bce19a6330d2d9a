import { toSandboxPath } from "@sandport/core";
import { guardedFiles, INLINE_READ_BYTES, type OperationCall, type WorkspaceRunner } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

/** The mode E2B gives a written file; others are applied with one `chmod` command (run in the workspace) afterwards. */
const WRITTEN_MODE = 0o644;

/** SDK request options of one file call. */
export function request(call: OperationCall): { readonly requestTimeoutMs: number; readonly signal: AbortSignal } {
  return { requestTimeoutMs: call.remainingMs(), signal: call.signal };
}

/**
 * How the symlink guard runs: E2B's file API follows symlinks, so every file
 * call outside a pristine sandbox first resolves its paths with one command.
 */
export const inWorkspace: WorkspaceRunner<E2BContext, E2BSandbox> = (
  context,
  script,
  { sandboxId, instance, call },
  maxOutputBytes,
) => runScript(context, sandboxId, instance, script, call, maxOutputBytes);

/**
 * `writeFiles` writes all files in one request (the SDK's batched multipart
 * upload), after validating every path. Parent directories are created by
 * E2B. Files asking for a mode other than `0o644` get it from one `chmod`
 * command. `readFile` reads one file's bytes exactly; a missing file rejects `NOT_FOUND`.
 */
export const { writeFiles, readFile } = guardedFiles<E2BContext, E2BSandbox>({
  inWorkspace,
  commandRead: { inlineBytes: INLINE_READ_BYTES },
  writtenMode: WRITTEN_MODE,
  write: async (context, { instance, files, call }) => {
    const root = context.options.workspaceRoot;
    const entries = files.map((file) => ({ path: toSandboxPath(root, file.path), data: bytes(file.content) }));
    await instance.files.write(entries, request(call));
  },
  read: async (_context, { instance, absolute, call }) => {
    const read = await instance.files.read(absolute, { ...request(call), format: "bytes" });
    return read instanceof Uint8Array ? read : new Uint8Array(read);
  },
});

function bytes(content: Uint8Array): ArrayBuffer {
  return content.buffer.slice(content.byteOffset, content.byteOffset + content.byteLength) as ArrayBuffer;
}
