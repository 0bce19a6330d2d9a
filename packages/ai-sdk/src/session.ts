import { checkBridgeOptions, exitStatus, type SandboxHandle } from "@sandport/core";
import type { Experimental_SandboxSession } from "ai";
import { deleteFile, listDirectory, statPath } from "./file-info.js";
import {
  readBinaryFile,
  readFileStream,
  readTextFile,
  writeBinaryFile,
  writeFileStream,
  writeTextFile,
} from "./files.js";
import { spawnProcess } from "./process.js";
import { opOptions, type SessionContext, sessionContext, shellRequest } from "./session-context.js";
import { SANDBOX_SESSION_OPTION_KEYS, type SandboxSessionOptions } from "./session-options.js";

/**
 * Turns a Sandport runtime and one of its sandboxes into the AI SDK's
 * `Experimental_SandboxSession`, for `experimental_sandbox` on `generateText`,
 * `streamText` and `ToolLoopAgent`. Every member is there; one whose port
 * method the runtime lacks (`stat`, `listDir`, `remove`; `spawn` for writable
 * stdin) rejects with the AI SDK's `UnsupportedFunctionalityError` before
 * doing anything. Missing files are `null` (`false` for `deleteFile`), as the
 * contract says; every other failure rejects with a `SandportError`.
 */
export function createSandboxSession<H extends SandboxHandle>(
  options: SandboxSessionOptions<H>,
): Experimental_SandboxSession {
  checkBridgeOptions(options, SANDBOX_SESSION_OPTION_KEYS, "createSandboxSession options");
  return sessionOf(sessionContext(options), options.description);
}

/** The session members over a context (also the harness provider's restricted view). */
export function sessionOf(context: SessionContext, description?: string): Experimental_SandboxSession {
  const spawn = (request: Parameters<typeof spawnProcess>[1]) => spawnProcess(context, request);
  return {
    description: description ?? describe(context),
    readFile: (request) => readFileStream(context, request),
    readBinaryFile: (request) => readBinaryFile(context, request),
    readTextFile: (request) => readTextFile(context, request),
    writeFile: (request) => writeFileStream(context, request),
    writeBinaryFile: (request) => writeBinaryFile(context, request),
    writeTextFile: (request) => writeTextFile(context, request),
    stat: (request) => statPath(context, request),
    listDirectory: (request) => listDirectory(context, request),
    deleteFile: (request) => deleteFile(context, request),
    // The AI SDK types `spawn` as overloads on `stdin`; one implementation serves them all.
    spawn: spawn as Experimental_SandboxSession["spawn"],
    run: async (request) => {
      const result = await context.runtime.exec(
        context.handle,
        shellRequest(context, request),
        opOptions(request.abortSignal),
      );
      return { exitCode: exitStatus(result), stdout: result.stdout, stderr: result.stderr };
    },
  };
}

function describe(context: SessionContext): string {
  return [
    `A Sandport ${context.runtime.provider} sandbox (${context.handle.id}).`,
    `Commands run with sh in ${context.base}; relative paths resolve against it.`,
    `Absolute paths must lie under ${context.runtime.workspaceRoot}.`,
  ].join(" ");
}
