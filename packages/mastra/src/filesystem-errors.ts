import { SandportError } from "@sandport/core";
import type { MastraWorkspaceModule } from "./internal/sdk-types.js";

/** A Mastra filesystem error class that takes the path it is about. */
export type MastraPathError = new (path: string) => Error;

/**
 * The error Mastra's own `LocalFilesystem` throws for the same case as a
 * Sandport refusal about `path`, with the `SandportError` as its `cause`:
 * `INVALID_REQUEST` (the port refuses a path outside the workspace, directly
 * or through a symlink, before any provider call) is Mastra's
 * `PermissionError`, as `LocalFilesystem` refuses a path outside its base
 * path; `NOT_FOUND` is `NotFound` (Mastra's `FileNotFoundError` unless the
 * caller names `DirectoryNotFoundError`). Anything else is returned as it
 * was: Mastra has no class for a provider's failure, which stays a
 * `SandportError`.
 */
export function toMastraError(
  mastra: MastraWorkspaceModule,
  error: unknown,
  path: string,
  NotFound: MastraPathError = mastra.FileNotFoundError,
): unknown {
  if (!SandportError.isInstance(error)) return error;
  if (error.code === "INVALID_REQUEST")
    return withCause(new mastra.PermissionError(path, `access (${error.message})`), error);
  if (error.code === "NOT_FOUND") return withCause(new NotFound(path), error);
  return error;
}

/** `error` with `cause` set as the `Error` constructor would (own, not enumerable): Mastra's constructors take none. */
function withCause<E extends Error>(error: E, cause: SandportError): E {
  Object.defineProperty(error, "cause", { value: cause, writable: true, configurable: true, enumerable: false });
  return error;
}
