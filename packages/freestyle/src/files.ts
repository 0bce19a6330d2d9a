import { enterWorkspaceScript, retry, toSandboxPath } from "@sandport/core";
import {
  archiveBeatsFileRequests,
  type CallBudget,
  guardedFiles,
  INLINE_READ_BYTES,
  runCommandToEnd,
  SCRIPT_OUTPUT_BYTES,
  type WorkspaceRunner,
} from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { mapFreestyleError } from "./errors.js";
import { API_STDIN_BYTES, planCommand } from "./exec.js";
import type { FreestyleFilesystem } from "./internal/sdk-types.js";
import { fromHome, MAX_EXEC_TIMEOUT_MS } from "./options.js";
import { runScript } from "./run-script.js";
import { commandOptions, freestyleCommand } from "./vendor-command.js";

/** How many file requests of one call are in flight at once (the API has no batch upload). */
const FILE_CONCURRENCY = 8;
/** Retries of one file request: each is safe to repeat (a whole-file write, a read, a mkdir, a remove). */
const FILE_RETRY = { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 2_000 } as const;

/**
 * Whether a batch goes as one archive: a command is one `exec-await` with
 * stdin of up to 1 MiB in the request, two requests above (the stdin
 * uploaded first), where each file written alone is its own `PUT`. So 2
 * files up to 1 MiB, 3 files or more of any size.
 */
export const archiveWorthIt = archiveBeatsFileRequests(API_STDIN_BYTES);

/**
 * How the symlink guard runs: in the workspace (`cd` first, since commands
 * start in the home directory; made first when nothing has made it yet: a
 * launch does not). Freestyle's file API follows symlinks, so
 * every file call outside a pristine VM first resolves its paths with one command.
 */
export const inWorkspace: WorkspaceRunner<FreestyleContext, never> = (
  context,
  script,
  { sandboxId, call },
  maxOutputBytes,
) => {
  const workspace = enterWorkspaceScript(fromHome(context.options, context.options.workspaceRoot));
  return runScript(context, sandboxId, `${workspace} && ${script}`, call, undefined, maxOutputBytes);
};

/**
 * `writeFiles`, after validating every path: a batch {@link archiveWorthIt}
 * picks is one command whose stdin carries every file as one archive (the
 * core's `fileArchiveScript`: each file whole under a temporary name, its
 * mode, renamed; stdin staged as a file past 1 MiB, as `exec` does). Other
 * batches write each file as raw bytes in its own `PUT fs/write` with its
 * mode (the API has no batch), at most 8 at a time; Freestyle writes each
 * file atomically and creates its parent directories. A failure can leave
 * some of the files written. `readFile`
 * reads one file's bytes exactly (`GET fs/read`); a missing file rejects `NOT_FOUND`.
 */
export const { writeFiles, readFile } = guardedFiles<FreestyleContext, never>({
  inWorkspace,
  commandRead: { inlineBytes: INLINE_READ_BYTES },
  connect: false,
  write: async (context, { sandboxId, files, call }) => {
    await eachLimited(files, FILE_CONCURRENCY, (file) => {
      const path = toSandboxPath(context.options.workspaceRoot, file.path);
      return fileCall(context, sandboxId, "writeFiles", path, call, (fs) =>
        fs.writeFile(path, file.content, { mode: file.mode, signal: call.signal }),
      );
    });
  },
  read: (context, { sandboxId, absolute, call }) =>
    fileCall(context, sandboxId, "readFile", absolute, call, (fs) => fs.readFile(absolute, { signal: call.signal })),
  archive: {
    use: archiveWorthIt,
    // Run as a command in the workspace, where `exec` runs (which the emulator maps), stdin planned as `exec` plans it.
    startsInWorkspace: true,
    run: (context, script, stdin, { sandboxId, call }) => {
      const timeoutMs = Math.max(1, Math.min(MAX_EXEC_TIMEOUT_MS, Math.floor(call.remainingMs())));
      const plan = planCommand(context.options, {
        shell: script,
        stdin,
        timeoutMs,
        maxOutputBytes: SCRIPT_OUTPUT_BYTES,
      });
      return runCommandToEnd(freestyleCommand(context, sandboxId, plan, call), commandOptions(plan, call.signal));
    },
  },
});

/**
 * One file request on `path`, retried on retryable errors (every file request
 * is safe to repeat); failures mapped with the path named.
 */
export function fileCall<T>(
  context: FreestyleContext,
  vmId: string,
  operation: string,
  path: string,
  call: CallBudget & { readonly signal: AbortSignal },
  work: (fs: FreestyleFilesystem) => Promise<T>,
): Promise<T> {
  return retry(
    async () => {
      try {
        return await work((await context.vm(vmId, call)).fs);
      } catch (error) {
        throw mapFreestyleError(error, { operation, sandboxId: vmId, path });
      }
    },
    { policy: { ...FILE_RETRY, budgetMs: call.remainingMs() }, signal: call.signal },
  );
}

/** Runs `work` on every item, at most `limit` at once; rejects with the first failure once the rest have settled. */
export async function eachLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
