import { posix } from "node:path";
import { SandportError, toSandboxPath } from "@sandport/core";
import { guardedFiles, INLINE_READ_BYTES, type WorkspaceRunner } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { MsbSandbox } from "./internal/sdk-types.js";
import { runScript } from "./run-script.js";

/** The mode agentd gives a new file (0666 under the usual umask 022); others are applied with one `chmod` afterwards. */
const WRITTEN_MODE = 0o644;
/** File writes in flight at once, each its own agent connection. */
const WRITE_CONCURRENCY = 8;

/**
 * Whether a batch goes as one archive: one command is one agent session (2
 * requests: the lookup by name, the WebSocket) whatever its stdin's size,
 * and each file written alone is one session too, after a `mkdir` session per
 * directory. So from 2 files up.
 */
export function archiveWorthIt(files: number): boolean {
  return files >= 2;
}

/**
 * How the symlink guard runs: agentd's file calls follow symlinks, so every
 * file call outside a pristine sandbox first resolves its paths with one
 * command (GNU `realpath -m`) in the workspace.
 */
export const inWorkspace: WorkspaceRunner<MicrosandboxContext, MsbSandbox> = (
  context,
  script,
  { sandboxId, instance, call },
  maxOutputBytes,
) => runScript(context, sandboxId, instance, script, call, undefined, maxOutputBytes);

/**
 * `writeFiles`, after validating every path and checking them for symlinks
 * that leave the workspace: two files or more are one command whose stdin
 * carries them all as one archive (the core's `fileArchiveScript`: each
 * file whole under a temporary name, its mode, renamed; stdin in 1 MiB
 * messages). A single file goes through the SDK's filesystem calls: its
 * parent directory created first, then its bytes streamed in the agent's
 * 3 MiB chunks; a mode other than `0o644` then comes from one `chmod` command. `readFile`
 * reads one file's bytes exactly, streamed from the agent: a missing file
 * rejects `NOT_FOUND`; one larger than the call's `maxBytes` rejects
 * `OUTPUT_LIMIT` as soon as it has passed it, without reading the rest.
 */
export const { writeFiles, readFile } = guardedFiles<MicrosandboxContext, MsbSandbox>({
  inWorkspace,
  commandRead: { inlineBytes: INLINE_READ_BYTES },
  writtenMode: WRITTEN_MODE,
  write: async (context, { instance, files }) => {
    const absolute = (relative: string) => toSandboxPath(context.options.workspaceRoot, relative);
    const fs = instance.fs();
    await inParallel(deepestDirectories(files.map((file) => file.path)), (directory) => fs.mkdir(absolute(directory)));
    await inParallel(files, (file) => fs.write(absolute(file.path), file.content));
  },
  read: async (_context, { instance, absolute, sandboxId, call, maxBytes }) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of await instance.fs().readStream(absolute)) {
      total += chunk.length;
      if (total > maxBytes) {
        throw new SandportError({
          code: "OUTPUT_LIMIT",
          provider: PROVIDER,
          retryable: false,
          message: `microsandbox file ${absolute} is larger than this read's maxBytes (${maxBytes}); pass a larger maxBytes to read it`,
          details: { sandboxId, path: absolute, limit: maxBytes },
        });
      }
      chunks.push(chunk);
      if (call.signal.aborted) throw call.signal.reason;
    }
    return chunks.length === 1 ? (chunks[0] as Uint8Array) : new Uint8Array(Buffer.concat(chunks, total));
  },
  archive: {
    use: archiveWorthIt,
    startsInWorkspace: true,
    run: (context, script, stdin, { sandboxId, instance, call }) =>
      runScript(context, sandboxId, instance, script, call, stdin),
  },
});

/** The directories that hold `paths`, leaving out the workspace root and every ancestor of another. */
export function deepestDirectories(paths: readonly string[]): string[] {
  const directories = [...new Set(paths.map((path) => posix.dirname(path)).filter((dir) => dir !== "."))];
  return directories.filter((directory) => !directories.some((other) => other.startsWith(`${directory}/`))).sort();
}

async function inParallel<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, items.length) }, lane));
}
