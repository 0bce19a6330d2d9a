import { posix } from "node:path";
import { type FileInfo, type FileKind, SandportError } from "@sandport/core";
import { type CallBudget, guardedFileOps, whenAbsent } from "@sandport/core/adapter";
import type { Agent37Context } from "./context.js";
import { isNotFound, mapAgent37Error } from "./errors.js";
import { inWorkspace } from "./files.js";
import { PROVIDER } from "./handle.js";
import type { Agent37FileEntry } from "./internal/sdk-types.js";

/**
 * The file operations, on the instance URL with the key in its header:
 * `listDir` is one `GET /v1/files?path=` (names, kinds, file sizes); `stat`
 * lists the parent directory and reports the entry (the instance plane has
 * no stat; a symlink is reported as itself), `NOT_FOUND` when it is not
 * there; `mkdir` is `POST /v1/files/dir` (parents included, an existing
 * directory is fine); `remove` is `DELETE /v1/files` (a tree included,
 * absent is fine; the workspace root is refused). Neither mode nor time is
 * reported: the listing has neither.
 */
export const { listDir, stat, mkdir, remove } = guardedFileOps<Agent37Context, never>({
  inWorkspace,
  connect: false,
  listDir: async (context, { sandboxId, relative, absolute, call }) => {
    const entries = await list(context, sandboxId, absolute, call, "listDir");
    return entries.map((entry) => toFileInfo(entry, relative === "" ? entry.name : `${relative}/${entry.name}`));
  },
  stat: async (context, { sandboxId, relative, absolute, call }) => {
    const name = posix.basename(absolute);
    const entries = await list(context, sandboxId, posix.dirname(absolute), call, "stat");
    const found = entries.find((entry) => entry.name === name);
    if (!found) {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: PROVIDER,
        retryable: false,
        message: `agent37 stat: ${absolute} does not exist in instance ${sandboxId}`,
        details: { operation: "stat", sandboxId, path: absolute },
      });
    }
    return toFileInfo(found, relative);
  },
  mkdir: (context, { sandboxId, absolute, call }) => change(context, sandboxId, "mkdir", absolute, call),
  remove: (context, { sandboxId, absolute, call }) =>
    change(context, sandboxId, "delete", absolute, call).catch(whenAbsent(isNotFound, undefined)),
});

async function list(
  context: Agent37Context,
  instanceId: string,
  path: string,
  call: CallBudget,
  operation: string,
): Promise<Agent37FileEntry[]> {
  const url = await context.instanceUrl(instanceId, operation, call);
  return context.client.listFiles(url, path, call).catch((error: unknown) => {
    throw mapAgent37Error(error, { operation, sandboxId: instanceId, path });
  });
}

async function change(
  context: Agent37Context,
  instanceId: string,
  action: "mkdir" | "delete",
  path: string,
  call: CallBudget,
): Promise<void> {
  const operation = action === "mkdir" ? "mkdir" : "remove";
  const url = await context.instanceUrl(instanceId, operation, call);
  await context.client.changeFiles(url, action, path, call).catch((error: unknown) => {
    throw mapAgent37Error(error, { operation, sandboxId: instanceId, path });
  });
}

function toFileInfo(entry: Agent37FileEntry, relative: string): FileInfo {
  return { name: entry.name, path: relative, kind: kindOf(entry.type), size: entry.size ?? 0 };
}

function kindOf(type: string): FileKind {
  return type === "file" || type === "directory" || type === "symlink" ? type : "other";
}
