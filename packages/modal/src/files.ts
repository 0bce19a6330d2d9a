import { type FileInput, type OpOptions, toSandboxPath, validateFiles } from "@sandport/core";
import {
  chmodFailure,
  chmodScript,
  type GuardRunner,
  guardPaths,
  modesToSet,
  onGuardedPath,
} from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { ModalSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

/** The mode Modal's file helper gives a written file; others are applied with one `chmod` afterwards. */
const WRITTEN_MODE = 0o644;
/** How many files are written at once (each write is its own exec of the helper). */
const WRITES_AT_ONCE = 4;

/**
 * Writes every file through the SDK's file helper (one exec, its stdin
 * stream and its exit per file; a few at a time), after validating every
 * path. The helper creates parent directories. Files asking for a mode other
 * than `0o644` get it from one `chmod` command afterwards.
 */
export async function writeFiles(
  context: ModalContext,
  handle: unknown,
  files: readonly FileInput[],
  op?: OpOptions,
): Promise<void> {
  const root = context.options.workspaceRoot;
  const valid = validateFiles(files, { root, provider: PROVIDER });
  // Each written path's parent must stay inside, and so must the file if it is a link.
  const targets = [...new Set(valid.map((file) => file.path))].map((relative) => ({ relative, followFinal: true }));
  return context.onInstance(handle, op, "writeFiles", context.options.timeouts.fileMs, async (sandbox, call, id) => {
    await guardPaths(context, { sandboxId: id, instance: sandbox, call }, targets, runGuard);
    for (let start = 0; start < valid.length; start += WRITES_AT_ONCE) {
      const batch = valid.slice(start, start + WRITES_AT_ONCE);
      await Promise.all(
        batch.map((file) => sandbox.filesystem.writeBytes(file.content, toSandboxPath(root, file.path))),
      );
    }
    const modes = modesToSet(valid, WRITTEN_MODE);
    if (modes.size === 0) return;
    const result = await runScript(context.options, sandbox, chmodScript(modes), call);
    if (result.exitCode !== 0) throw chmodFailure(PROVIDER, id, result.exitCode, result.stderr);
  });
}

/** Reads one file's bytes exactly. A missing file rejects `NOT_FOUND`. */
export function readFile(context: ModalContext, handle: unknown, path: string, op?: OpOptions): Promise<Uint8Array> {
  const rule = { operation: "readFile", path, allowRoot: false, followFinal: true };
  return onGuardedPath(context, handle, op, rule, runGuard, ({ instance, absolute }) =>
    instance.filesystem.readBytes(absolute),
  );
}

/**
 * How the symlink guard runs: Modal's file helper follows symlinks, so every
 * file call outside a pristine sandbox first resolves its paths with one
 * command in the workspace.
 */
export const runGuard: GuardRunner<ModalContext, ModalSandbox> = (context, script, { instance, call }) =>
  runScript(context.options, instance, script, call);
