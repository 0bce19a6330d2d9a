import { enterWorkspaceScript, retry, toSandboxPath } from "@sandport/core";
import { type CallBudget, guardedFiles, type WorkspaceRunner } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { mapFreestyleError } from "./errors.js";
import type { FreestyleFilesystem } from "./internal/sdk-types.js";
import { fromHome } from "./options.js";
import { runScript } from "./run-script.js";

/** How many file requests of one call are in flight at once (the API has no batch upload). */
const FILE_CONCURRENCY = 8;
/** Retries of one file request: each is safe to repeat (a whole-file write, a read, a mkdir, a remove). */
const FILE_RETRY = { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 2_000 } as const;

/**
 * How the symlink guard runs: in the workspace (`cd` first, since commands
 * start in the home directory; made first when nothing has made it yet: a
 * launch does not). Freestyle's file API follows symlinks, so
 * every file call outside a pristine VM first resolves its paths with one command.
 */
export const inWorkspace: WorkspaceRunner<FreestyleContext, never> = (context, script, { sandboxId, call }) => {
  const workspace = enterWorkspaceScript(fromHome(context.options, context.options.workspaceRoot));
  return runScript(context, sandboxId, `${workspace} && ${script}`, call);
};

/**
 * `writeFiles` writes every file, each as raw bytes in its own `PUT fs/write`
 * with its mode (the API has no batch), at most 8 at a time, after validating
 * every path. Freestyle writes each file atomically and creates its parent
 * directories. A failure can leave some of the files written. `readFile`
 * reads one file's bytes exactly (`GET fs/read`); a missing file rejects `NOT_FOUND`.
 */
export const { writeFiles, readFile } = guardedFiles<FreestyleContext, never>({
  inWorkspace,
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
