import { toSandboxPath } from "@sandport/core";
import { guardedFiles, INLINE_READ_BYTES, type WorkspaceRunner } from "@sandport/core/adapter";
import { type DaytonaContext, seconds } from "./context.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { repeatable, runInWorkspace } from "./run-script.js";

/**
 * How the symlink guard runs: one `executeCommand` in the workspace (made
 * first when missing; its stdout and stderr come back merged). Daytona's file API follows symlinks,
 * so every file call outside a pristine sandbox first resolves its paths.
 */
const inWorkspace: WorkspaceRunner<DaytonaContext, DaytonaSandbox> = async (
  context,
  script,
  { sandboxId, instance, call },
) => {
  const site = { operation: "workspace script", sandboxId };
  const { exitCode, output } = await runInWorkspace(instance, script, context.options.workspaceRoot, call, site);
  return { exitCode, stdout: output, stderr: output };
};

/**
 * `writeFiles` writes all files in one request (the SDK's multipart bulk
 * upload; Daytona creates parent directories), after validating every path;
 * files asking for a mode other than `0o644`, the mode Daytona gives an
 * upload, get it from one `chmod` command. `readFile` reads one file's bytes
 * exactly (the SDK's download, one request); a missing file rejects `NOT_FOUND`.
 */
export const { writeFiles, readFile } = guardedFiles<DaytonaContext, DaytonaSandbox>({
  inWorkspace,
  commandRead: { inlineBytes: INLINE_READ_BYTES },
  writtenMode: 0o644,
  write: async (context, { sandboxId, instance, files, call }) => {
    const uploads = files.map((file) => ({
      source: Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength),
      destination: toSandboxPath(context.options.workspaceRoot, file.path),
    }));
    const site = { operation: "writeFiles", sandboxId };
    await repeatable(call, site, () => instance.fs.uploadFiles(uploads, seconds(call.remainingMs())));
  },
  read: async (_context, { sandboxId, instance, absolute, call }) => {
    const site = { operation: "readFile", path: absolute, sandboxId };
    const data = await repeatable(call, site, () => instance.fs.downloadFile(absolute, seconds(call.remainingMs())));
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  },
});
