import { toSandboxPath } from "@sandport/core";
import { guardedFiles, INLINE_READ_BYTES, type WorkspaceRunner } from "@sandport/core/adapter";
import type { ModalContext } from "./context.js";
import type { ModalSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";
import { STDIN_CHUNK_BYTES } from "./vendor-command.js";

/** The mode Modal's file helper gives a written file; others are applied with one `chmod` afterwards. */
const WRITTEN_MODE = 0o644;
/** How many files are written at once (each write is its own exec of the helper). */
const WRITES_AT_ONCE = 4;
/** Requests of one file through the helper: its exec, its stdin stream, its wait. */
const REQUESTS_PER_FILE = 3;
/** Requests of a command beyond its stdin writes: its start, two output streams, its wait, stdin's end. */
const REQUESTS_PER_COMMAND = 5;

/**
 * Whether a batch goes as one archive: when its command (5 requests, and one
 * per MiB of stdin) takes fewer requests than the helper's 3 per file. So 3
 * or more small files, never 2, and large files one by one (their helper
 * streams them in one request each).
 */
export function archiveWorthIt(files: number, bytes: number): boolean {
  return REQUESTS_PER_COMMAND + Math.ceil(bytes / STDIN_CHUNK_BYTES) < REQUESTS_PER_FILE * files;
}

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
) => runScript(context.options, instance, script, call, undefined, maxOutputBytes);

/**
 * `writeFiles`, after validating every path: a batch {@link archiveWorthIt}
 * picks is one command whose stdin carries every file as one archive (the
 * core's `fileArchiveScript`: each file whole under a temporary name, its
 * mode, renamed; stdin in writes of 1 MiB). Other batches go through the
 * SDK's file helper (one exec, its stdin stream and its exit per file, a few
 * at a time), and files asking for a mode other than `0o644` get it from
 * one `chmod` command afterwards. Both create parent directories. `readFile` reads one file's bytes exactly; a missing file
 * rejects `NOT_FOUND`.
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
  archive: {
    use: archiveWorthIt,
    startsInWorkspace: true,
    run: (context, script, stdin, { instance, call }) => runScript(context.options, instance, script, call, stdin),
  },
});
