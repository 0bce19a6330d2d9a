import { type FileInput, type OpOptions, toSandboxPath } from "@sandport/core";
import { onGuardedFiles, onGuardedPath, type WorkspaceRunner } from "@sandport/core/adapter";
import { type DaytonaContext, seconds } from "./context.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { repeatable, runScript } from "./run-script.js";

/** The mode Daytona gives an uploaded file; others are applied with one `chmod` command afterwards. */
const WRITTEN_MODE = 0o644;

/**
 * Writes all files in one request (the SDK's multipart bulk upload; Daytona
 * creates parent directories), after validating every path. Files asking for
 * a mode other than `0o644` get it from one `chmod` command.
 */
export function writeFiles(
  context: DaytonaContext,
  handle: unknown,
  files: readonly FileInput[],
  op?: OpOptions,
): Promise<void> {
  const rule = { writtenMode: WRITTEN_MODE };
  return onGuardedFiles(context, handle, files, op, rule, inWorkspace, async ({ sandboxId, instance, files, call }) => {
    const uploads = files.map((file) => ({
      source: Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength),
      destination: toSandboxPath(context.options.workspaceRoot, file.path),
    }));
    const site = { operation: "writeFiles", sandboxId };
    await repeatable(call, site, () => instance.fs.uploadFiles(uploads, seconds(call.remainingMs())));
  });
}

/** Reads one file's bytes exactly (the SDK's download, one request). A missing file rejects `NOT_FOUND`. */
export function readFile(context: DaytonaContext, handle: unknown, path: string, op?: OpOptions): Promise<Uint8Array> {
  const rule = { operation: "readFile", path, allowRoot: false, followFinal: true };
  return onGuardedPath(context, handle, op, rule, inWorkspace, async ({ sandboxId, instance, absolute, call }) => {
    const site = { operation: "readFile", path: absolute, sandboxId };
    const data = await repeatable(call, site, () => instance.fs.downloadFile(absolute, seconds(call.remainingMs())));
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  });
}

/**
 * How the symlink guard runs: one `executeCommand` in the workspace (its
 * stdout and stderr come back merged). Daytona's file API follows symlinks,
 * so every file call outside a pristine sandbox first resolves its paths.
 */
const inWorkspace: WorkspaceRunner<DaytonaContext, DaytonaSandbox> = async (
  context,
  script,
  { sandboxId, instance, call },
) => {
  const site = { operation: "workspace script", sandboxId };
  const { exitCode, output } = await runScript(instance, script, context.options.workspaceRoot, call, site);
  return { exitCode, stdout: output, stderr: output };
};
