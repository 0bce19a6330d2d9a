/**
 * The in-sandbox filesystem helper, `/__modal/.bin/modal-sandbox-fs-tools`.
 *
 * The SDK implements all of `sandbox.filesystem` by exec'ing this helper with
 * one JSON argument (`{"ReadFile":{"path":"/x"}}`); what goes over the wire
 * is an ordinary exec (`TaskExecStart`, stdin for `WriteFile`, stdout for the
 * result, the exit code), so that is what is emulated: an exec whose argv
 * names the helper is run by the emulator on the backend's file methods
 * instead of as a process. Results follow the helper's contract: file bytes or
 * JSON on stdout and exit 0, or exit 1 with
 * `{"version":1,"error_kind":"NotFound","message":...}` on stderr, which the
 * SDK turns into its typed `SandboxFilesystem*Error`s.
 *
 * `Watch` is not emulated (the port has no filesystem events).
 *
 * @module
 */

import type { FileInfo, SandboxHandle, SandboxRuntime } from "@sandport/core";
import { SandportError } from "@sandport/core";
import type { ExecIo, ExecProgram, ExitStatus } from "./exec-process.js";
import { messageOf } from "./grpc-status.js";
import { PathRefusedError, type SandboxPaths, toBackendPath } from "./paths.js";

/** Where the SDK expects the helper inside every sandbox. */
export const FS_TOOLS_PATH = "/__modal/.bin/modal-sandbox-fs-tools";

/** Where the helper's operations run. */
export interface FsToolsTarget {
  readonly backend: SandboxRuntime;
  readonly handle: SandboxHandle;
  readonly paths: SandboxPaths;
}

/** The helper's failure kinds that the SDK recognises. */
type ErrorKind =
  | "NotFound"
  | "IsFile"
  | "IsDirectory"
  | "NotDirectory"
  | "PathAlreadyExists"
  | "DirectoryNotEmpty"
  | "PermissionDenied"
  | "Io";

class FsToolError extends Error {
  readonly kind: ErrorKind;
  constructor(kind: ErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** True when an exec's argv runs the filesystem helper. */
export function isFsToolsCommand(argv: readonly string[]): boolean {
  return argv[0] === FS_TOOLS_PATH;
}

/** The helper operation an exec asks for (`"ReadFile"`, ...), and its argument. */
function parseCommand(argv: readonly string[]): { operation: string | undefined; argument: Record<string, unknown> } {
  let command: unknown;
  try {
    command = argv.length === 2 ? JSON.parse(argv[1] as string) : undefined;
  } catch {
    command = undefined;
  }
  const [operation, argument] =
    typeof command === "object" && command !== null ? (Object.entries(command)[0] ?? []) : [];
  return {
    operation,
    argument: typeof argument === "object" && argument !== null ? (argument as Record<string, unknown>) : {},
  };
}

/** The name of a helper operation the emulator does not have (`Watch`), else `undefined`. */
export function notEmulatedFsTool(argv: readonly string[]): string | undefined {
  return parseCommand(argv).operation === "Watch" ? "modal-sandbox-fs-tools Watch" : undefined;
}

/** The program for a helper exec, and whether it reads stdin (`WriteFile`). */
export function fsToolsProgram(
  argv: readonly string[],
  target: FsToolsTarget,
): { program: ExecProgram; readsStdin: boolean } {
  const { operation, argument } = parseCommand(argv);
  return {
    readsStdin: operation === "WriteFile",
    program: async (io) => {
      io.started();
      try {
        const output = await run(operation, argument, target, io);
        io.stdout.append(output);
        return { code: 0 };
      } catch (error) {
        if (io.signal.aborted) throw error;
        return fail(io, error);
      }
    },
  };
}

async function run(
  operation: string | undefined,
  argument: Record<string, unknown>,
  target: FsToolsTarget,
  io: ExecIo,
): Promise<Uint8Array> {
  const path = typeof argument.path === "string" ? argument.path : undefined;
  if (path === undefined) throw new FsToolError("Io", `unknown command: ${operation ?? "none"}`);
  const relative = target.paths.toRelative(path);
  const { backend, handle } = target;
  const stat = (at: string) => requireMethod(backend, "stat")(handle, toBackendPath(backend, at));
  const existing = async (at: string) =>
    stat(at).catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error)));
  switch (operation) {
    case "ReadFile": {
      const info = await existing(relative);
      if (!info) throw new FsToolError("NotFound", "path does not exist");
      if (info.kind === "directory") throw new FsToolError("IsDirectory", "expected a file path");
      return backend.readFile(handle, toBackendPath(backend, relative));
    }
    case "WriteFile": {
      if ((await existing(relative))?.kind === "directory")
        throw new FsToolError("IsDirectory", "expected a file path");
      const content = await io.stdin.readAll(io.signal);
      await backend.writeFiles(handle, [{ path: toBackendPath(backend, relative), content }]);
      return new Uint8Array();
    }
    case "ListFiles": {
      const info = await existing(relative);
      if (!info) throw new FsToolError("NotFound", "path does not exist");
      if (info.kind !== "directory") throw new FsToolError("IsFile", "expected a directory path");
      const entries = await requireMethod(backend, "listDir")(handle, toBackendPath(backend, relative));
      return json(entries.map((entry) => entryJson(entry, entry.name, target.paths.toAbsolute(entry.path))));
    }
    case "Stat": {
      const info = await existing(relative);
      if (!info) throw new FsToolError("NotFound", "path does not exist");
      const name = path.replace(/\/+$/, "").split("/").pop() ?? "";
      return json(entryJson(info, name, path));
    }
    case "MakeDirectory": {
      const info = await existing(relative);
      if (argument.parents === false) {
        if (info) throw new FsToolError("PathAlreadyExists", "path already exists");
        const parent = relative.includes("/") ? relative.slice(0, relative.lastIndexOf("/")) : "";
        const parentInfo = await existing(parent);
        if (!parentInfo) throw new FsToolError("NotFound", "parent directory does not exist");
        if (parentInfo.kind !== "directory")
          throw new FsToolError("NotDirectory", "a component of the path is not a directory");
      } else if (info) {
        if (info.kind === "directory") return new Uint8Array();
        throw new FsToolError("PathAlreadyExists", "path already exists");
      }
      await requireMethod(backend, "mkdir")(handle, toBackendPath(backend, relative));
      return new Uint8Array();
    }
    case "Remove": {
      if (relative === "") throw new FsToolError("PermissionDenied", "permission denied");
      const info = await existing(relative);
      if (!info) throw new FsToolError("NotFound", "path does not exist");
      if (info.kind === "directory" && argument.recursive !== true) {
        const entries = await requireMethod(backend, "listDir")(handle, relative);
        if (entries.length > 0) throw new FsToolError("DirectoryNotEmpty", "directory is not empty");
      }
      await requireMethod(backend, "remove")(handle, relative);
      return new Uint8Array();
    }
    default:
      throw new FsToolError("Io", `unknown command: ${operation ?? "none"}`);
  }
}

/** Exit 1 with the helper's JSON error payload on stderr. */
function fail(io: ExecIo, error: unknown): ExitStatus {
  let kind: ErrorKind = "Io";
  let message = messageOf(error);
  if (error instanceof FsToolError) kind = error.kind;
  else if (error instanceof PathRefusedError) kind = "PermissionDenied";
  else if (isNotFound(error)) [kind, message] = ["NotFound", "path does not exist"];
  else if (SandportError.isInstance(error) && /not a directory|needs .* to be a directory/.test(error.message)) {
    [kind, message] = ["NotDirectory", "a component of the path is not a directory"];
  }
  io.stderr.append(Buffer.from(JSON.stringify({ version: 1, error_kind: kind, message })));
  return { code: 1 };
}

/** One entry as the helper prints it (`mode` is the whole `st_mode`, `modified_time` in epoch seconds). */
function entryJson(info: FileInfo, name: string, path: string) {
  const type = info.kind === "directory" ? "directory" : info.kind === "symlink" ? "symlink" : "file";
  const permissions = (info.mode ?? (type === "directory" ? 0o755 : 0o644)) & 0o7777;
  const typeBits = type === "directory" ? 0o040000 : type === "symlink" ? 0o120000 : 0o100000;
  return {
    name,
    path,
    type,
    size: info.size,
    mode: typeBits | permissions,
    permissions: permissions.toString(8).padStart(4, "0"),
    owner: "root",
    group: "root",
    modified_time: info.modifiedAt ? Date.parse(info.modifiedAt) / 1000 : 0,
  };
}

function json(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

function isNotFound(error: unknown): boolean {
  return SandportError.isInstance(error) && error.code === "NOT_FOUND";
}

type OptionalFileMethod = "stat" | "listDir" | "mkdir" | "remove";

function requireMethod<M extends OptionalFileMethod>(backend: SandboxRuntime, name: M): NonNullable<SandboxRuntime[M]> {
  const method = backend[name];
  if (!method) throw new FsToolError("Io", `the emulator's backend runtime has no ${name}`);
  return method.bind(backend) as NonNullable<SandboxRuntime[M]>;
}
