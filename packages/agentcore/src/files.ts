import { enterWorkspaceScript, invalidRequest, quoteShellArg, SandportError } from "@sandport/core";
import { guardedFiles, INLINE_READ_BYTES, type WorkspaceRunner } from "@sandport/core/adapter";
import { type AgentCoreContext, fileBytes, toolPath } from "./context.js";
import { mapAgentCoreError } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { ToolFile } from "./internal/sdk-types.js";
import { invokeTool, resultText } from "./invoke.js";
import { fromWorkingDirectory } from "./options.js";
import { runScript } from "./run-script.js";

/** AgentCore's payload limit (100 MB, request or response), which inline files must fit in. */
export const MAX_PAYLOAD_BYTES = 100_000_000;
/** Room kept in a `writeFiles` request for its JSON beyond the base64 of the files. */
const ENVELOPE_BYTES = 64 * 1024;

/**
 * How the adapter's scripts run in the workspace: `cd` first, since commands
 * start in the working directory, making it first when nothing has yet (a
 * launch without labels or env does not). AgentCore's file tools follow symlinks, so
 * every file call outside a pristine session first resolves its paths with one command.
 */
export const inWorkspace: WorkspaceRunner<AgentCoreContext, never> = (
  context,
  script,
  { sandboxId, call },
  maxOutputBytes,
) => {
  const workspace = enterWorkspaceScript(fromWorkingDirectory(context.options, context.options.workspaceRoot));
  return runScript(context, sandboxId, `${workspace} && ${script}`, call, maxOutputBytes);
};

/**
 * `writeFiles` sends every file in one `writeFiles` tool call, as bytes
 * (`blob`, base64 on the wire), after refusing (`INVALID_REQUEST`, nothing
 * sent) a batch whose encoded size passes AgentCore's 100 MB payload limit.
 * It is sent once (never repeated by the SDK). `readFile` is one `readFiles`
 * call (repeatable: a read); a result AgentCore marks as an error is
 * `NOT_FOUND` when a check in the session finds no such file, and is read
 * once more when the file is there (made since the first read). In a
 * session where a command has run, a read is first one guarded command
 * that prints a file of up to 256 KiB (`commandRead`): `readFiles` only
 * for a larger one.
 */
export const { writeFiles, readFile } = guardedFiles<AgentCoreContext, never>({
  inWorkspace,
  commandRead: { inlineBytes: INLINE_READ_BYTES },
  connect: false,
  writtenMode: 0o644,
  write: async (context, { sandboxId, files, call }) => {
    const content: ToolFile[] = files.map((file) => ({
      path: pathOf(context, file.path),
      blob: typeof file.content === "string" ? new TextEncoder().encode(file.content) : file.content,
    }));
    const encoded = content.reduce(
      (sum, file) => sum + Math.ceil((file.blob?.byteLength ?? 0) / 3) * 4 + file.path.length,
      0,
    );
    if (encoded + ENVELOPE_BYTES > MAX_PAYLOAD_BYTES) {
      throw invalidRequest(
        `the files encode to ${encoded} bytes, past AgentCore's ${MAX_PAYLOAD_BYTES}-byte payload limit: write them in smaller batches`,
        { field: "files" },
        PROVIDER,
      );
    }
    const result = await invokeTool(
      context,
      sandboxId,
      { name: "writeFiles", arguments: { content } },
      call,
      false,
    ).catch((error: unknown) => {
      throw mapAgentCoreError(error, { operation: "writeFiles", sandboxId });
    });
    if (result.isError) throw toolFailure(sandboxId, "writeFiles", undefined, resultText(result));
  },
  read: async (context, { sandboxId, relative, call }) => {
    const once = async () => {
      const result = await invokeTool(
        context,
        sandboxId,
        { name: "readFiles", arguments: { paths: [pathOf(context, relative)] } },
        call,
        true,
      ).catch((error: unknown) => {
        throw mapAgentCoreError(error, { operation: "readFile", sandboxId, path: relative });
      });
      return { result, bytes: result.isError ? undefined : fileBytes(result) };
    };
    const first = await once();
    if (first.bytes !== undefined) return first.bytes;
    // AgentCore does not say how a read of a missing file answers: ask the session.
    const exists = await inWorkspace(context, `test -f ${quoteShellArg(`./${relative}`)}`, {
      sandboxId,
      instance: undefined as never,
      call,
    });
    if (exists.exitCode === 1) {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: PROVIDER,
        retryable: false,
        message: `agentcore session ${sandboxId} has no file ${relative}`,
        details: { sandboxId, path: relative, operation: "readFile" },
      });
    }
    // The file exists now: it may have been made since the read; one more read decides.
    const second = await once();
    if (second.bytes !== undefined) return second.bytes;
    throw toolFailure(sandboxId, "readFile", relative, resultText(second.result));
  },
});

/** A workspace-relative path as the file tools take it: relative to the working directory. */
function pathOf(context: AgentCoreContext, relative: string): string {
  const absolute = relative === "" ? context.options.workspaceRoot : `${context.options.workspaceRoot}/${relative}`;
  return toolPath(fromWorkingDirectory(context.options, absolute));
}

function toolFailure(sandboxId: string, operation: string, path: string | undefined, text: string): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `agentcore ${operation} failed in session ${sandboxId}${path === undefined ? "" : ` (${path})`}: ${text || "no reason given"}`,
    details: { sandboxId, operation, ...(path === undefined ? {} : { path }) },
  });
}
