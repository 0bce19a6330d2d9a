import { toSandboxPath } from "@sandport/core";
import { guardedFiles, INLINE_READ_BYTES, type WorkspaceRunner } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import type { ModalSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

/** The mode Modal's file helper gives a written file; others are applied with one `chmod` afterwards. */
const WRITTEN_MODE = 0o644;
/** How many files are written at once (each write is its own exec of the helper). */
const WRITES_AT_ONCE = 4;

/**
 * How the symlink guard runs: Modal's file helper follows symlinks, so every
 * file call outside a pristine sandbox first resolves its paths with one
 * command in the workspace.
 */
export const inWorkspace: WorkspaceRunner<ModalContext, ModalSandbox> = (
  context,
  script,
  { instance, call },
  maxOutputBytes,
) => runScript(context.options, instance, script, call, maxOutputBytes);

/**
 * `writeFiles` writes every file through the SDK's file helper (one exec, its
 * stdin stream and its exit per file; a few at a time), after validating
 * every path. The helper creates parent directories. Files asking for a mode
 * other than `0o644` get it from one `chmod` command afterwards. `readFile`
 * reads one file's bytes exactly; a missing file rejects `NOT_FOUND`.
 */
export const { writeFiles, readFile } = guardedFiles<ModalContext, ModalSandbox>({
  inWorkspace,
  commandRead: { inlineBytes: INLINE_READ_BYTES },
  writtenMode: WRITTEN_MODE,
  write: async (context, { instance, files }) => {
    const root = context.options.workspaceRoot;
    for (let start = 0; start < files.length; start += WRITES_AT_ONCE) {
      const batch = files.slice(start, start + WRITES_AT_ONCE);
      await Promise.all(
        batch.map((file) => instance.filesystem.writeBytes(file.content, toSandboxPath(root, file.path))),
      );
    }
  },
  read: (_context, { instance, absolute }) => instance.filesystem.readBytes(absolute),
});
