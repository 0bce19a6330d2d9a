import { SandportError } from "@sandport/core";
import { withCause } from "./filesystem-errors.js";
import type { MastraWorkspaceModule } from "./internal/sdk-types.js";

/** The paths a sandbox call named, as the caller gave them: a command's working directory, written files. */
export interface NamedPaths {
  /** The command's working directory (the base directory when the caller named none). */
  readonly cwd?: string;
  /** The files `writeFiles` was given. */
  readonly files?: readonly { readonly path: string }[];
}

const FILE_FIELD = /^files\[(\d+)\]\.path$/;

/**
 * A sandbox call's failure as Mastra's error: the port's refusal of one of
 * its paths (`INVALID_REQUEST` about the `cwd`, one with a `..` segment, or a
 * file's path outside the workspace) is Mastra's `PermissionError` about the path the caller
 * gave, the `SandportError` its `cause`, as the bridge's filesystem and
 * Mastra's `LocalFilesystem` refuse a path outside the workspace (Mastra's
 * `LocalSandbox` confines nothing and has no error of its own for it).
 * Anything else is returned as it was.
 */
export function toMastraSandboxError(mastra: MastraWorkspaceModule, error: unknown, named: NamedPaths): unknown {
  if (!SandportError.hasCode(error, "INVALID_REQUEST")) return error;
  const field = error.details.field;
  const file = typeof field === "string" ? FILE_FIELD.exec(field) : null;
  const path = field === "cwd" ? named.cwd : file ? named.files?.[Number(file[1])]?.path : undefined;
  if (path === undefined) return error;
  return withCause(new mastra.PermissionError(path, `access (${error.message})`), error);
}
