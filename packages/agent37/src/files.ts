import { enterWorkspaceScript, retry, toSandboxPath } from "@sandport/core";
import {
  archiveBeatsFileRequests,
  type CallBudget,
  EMBEDDED_STDIN_BYTES,
  guardedFiles,
  INLINE_READ_BYTES,
  runCommandToEnd,
  SCRIPT_OUTPUT_BYTES,
  type WorkspaceRunner,
} from "@sandport/core/adapter";
import type { Agent37Context } from "./context.js";
import { mapAgent37Error } from "./errors.js";
import { planCommand } from "./exec.js";
import { EXEC_CAP_MS, fromHome } from "./options.js";
import { runScript } from "./run-script.js";
import { agent37Command, commandOptions } from "./vendor-command.js";

/** How many file requests of one call are in flight at once (the file API has no batch upload). */
const FILE_CONCURRENCY = 8;
/** Retries of one file request: each is safe to repeat (a whole-file write, a read). */
const FILE_RETRY = { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 2_000 } as const;
/** The mode a file written through the instance plane gets (the API takes none). */
const WRITTEN_MODE = 0o644;

/**
 * Whether a batch goes as one archive: a command is one exec with stdin of
 * up to 64 KiB embedded in it, two requests above (the stdin uploaded
 * first), where each file written alone is its own `PUT`. So 2 files up to
 * 64 KiB, 3 files or more of any size.
 */
export const archiveWorthIt = archiveBeatsFileRequests(EMBEDDED_STDIN_BYTES);

/**
 * How the symlink guard and `chmod` run: one exec, in the workspace (made
 * first when nothing has made it yet: the launch does not). The
 * instance plane's file API is taken to follow symlinks, so every file call
 * outside a pristine instance first resolves its paths with one command.
 */
export const inWorkspace: WorkspaceRunner<Agent37Context, never> = (
  context,
  script,
  { sandboxId, call },
  maxOutputBytes,
) => {
  const workspace = enterWorkspaceScript(fromHome(context.options, context.options.workspaceRoot));
  return runScript(context, sandboxId, `${workspace} && ${script}`, call, maxOutputBytes);
};

/**
 * `writeFiles`: a batch {@link archiveWorthIt} picks is one exec whose stdin
 * carries every file as one archive (the core's `fileArchiveScript`: each
 * file whole under a temporary name, its mode, renamed; stdin embedded up
 * to 64 KiB, uploaded first past it, as `exec` does). Other batches write
 * every file with its own `PUT /v1/files/content` on the instance URL (raw
 * bytes; the key in the configured header), at most 8 at a time; files
 * asking for another mode than 0644 get one `chmod` after.
 * `readFile` is one `GET /v1/files/content`; a missing file rejects
 * `NOT_FOUND`. A request refused or lost on a retryable error is sent again
 * (each is safe to repeat); a failure can leave some files written.
 */
export const { writeFiles, readFile } = guardedFiles<Agent37Context, never>({
  inWorkspace,
  commandRead: { inlineBytes: INLINE_READ_BYTES },
  connect: false,
  writtenMode: WRITTEN_MODE,
  write: async (context, { sandboxId, files, call }) => {
    const url = await context.instanceUrl(sandboxId, "writeFiles", call);
    await eachLimited(files, FILE_CONCURRENCY, async (file) => {
      const path = toSandboxPath(context.options.workspaceRoot, file.path);
      const content = typeof file.content === "string" ? new TextEncoder().encode(file.content) : file.content;
      await fileCall(call, () =>
        context.client.writeFile(url, path, content, call).catch((error: unknown) => {
          throw mapAgent37Error(error, { operation: "writeFiles", sandboxId, path });
        }),
      );
    });
  },
  read: async (context, { sandboxId, absolute, call }) => {
    const url = await context.instanceUrl(sandboxId, "readFile", call);
    return fileCall(call, () =>
      context.client.readFile(url, absolute, call).catch((error: unknown) => {
        throw mapAgent37Error(error, { operation: "readFile", sandboxId, path: absolute });
      }),
    );
  },
  archive: {
    use: archiveWorthIt,
    // Run as a command in the workspace, where `exec` runs, stdin planned as `exec` plans it.
    startsInWorkspace: true,
    run: (context, script, stdin, { sandboxId, call }) => {
      const timeoutMs = Math.max(1, Math.min(EXEC_CAP_MS, Math.floor(call.remainingMs())));
      const plan = planCommand(context.options, {
        shell: script,
        stdin,
        timeoutMs,
        maxOutputBytes: SCRIPT_OUTPUT_BYTES,
      });
      return runCommandToEnd(agent37Command(context, sandboxId, plan, call), commandOptions(plan, call.signal));
    },
  },
});

/** One file request, repeated on retryable errors within the call's time. */
function fileCall<T>(call: CallBudget & { readonly signal: AbortSignal }, work: () => Promise<T>): Promise<T> {
  return retry(work, { policy: { ...FILE_RETRY, budgetMs: call.remainingMs() }, signal: call.signal });
}

/** Runs `work` on every item, at most `limit` at once; rejects with the first failure once the rest have settled. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}
