import { SandportError } from "@sandport/core";
import type { MastraWorkspaceModule } from "./internal/sdk-types.js";

/** A Mastra filesystem error class that takes the path it is about. */
export type MastraPathError = new (path: string) => Error;

/**
 * The error Mastra's own `LocalFilesystem` throws for the same case as a
 * Sandport refusal about `path`, with the `SandportError` as its `cause`:
 * `INVALID_REQUEST` (the port refuses a path outside the workspace, directly
 * or through a symlink, before any provider call) is Mastra's
 * `PermissionError` for `access` (`operation`, default `"access"`: see
 * {@link outsideHint}), as `LocalFilesystem` refuses a path outside its base
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
  operation = "access",
): unknown {
  if (!SandportError.isInstance(error)) return error;
  if (error.code === "INVALID_REQUEST") return withCause(new mastra.PermissionError(path, operation), error);
  if (error.code === "NOT_FOUND") return withCause(new NotFound(path), error);
  return error;
}

/**
 * The `operation` of Mastra's `LocalFilesystem` for an absolute path it
 * refuses as outside the workspace: it takes absolute paths as they are (it
 * does not read `/notes/a.md` as under its root), and tells an agent that
 * mistook `/` for the workspace which relative path it may have meant, when
 * that path's first segment is there (`exists`), else to drop the leading `/`.
 * A relative path, or an absolute one under `root` (refused for a symlink
 * leading out), is plain `access`.
 */
export async function outsideHint(
  path: string,
  root: string,
  exists: (segment: string) => Promise<boolean>,
): Promise<string> {
  if (!path.startsWith("/") || path === root || path.startsWith(`${root.replace(/\/+$/, "")}/`)) return "access";
  const stripped = path.replace(/^\/+/, "");
  if (!stripped) return "access";
  const [first] = stripped.split("/", 1);
  if (first && first !== "." && first !== ".." && (await exists(first).catch(() => false))) {
    return `access (path is outside the workspace; use a relative path like "${stripped}")`;
  }
  return 'access (path is outside the workspace; use a path relative to the workspace root, without a leading "/")';
}

/** `error` with `cause` set as the `Error` constructor would (own, not enumerable): Mastra's constructors take none. */
export function withCause<E extends Error>(error: E, cause: SandportError): E {
  Object.defineProperty(error, "cause", { value: cause, writable: true, configurable: true, enumerable: false });
  return error;
}
