import { validateCwd } from "@sandport/core";

/**
 * A process working directory from a vendor request, for the backend: a
 * directory under the vendor's `home` (which the backend's workspace stands
 * for) as a workspace-relative path, `undefined` for `home` itself, and any
 * other absolute directory (`/tmp`) as it is, since the vendor runs
 * processes anywhere in its machine. A relative path is relative to `home`.
 * `..` segments and control characters throw `INVALID_REQUEST` (each
 * emulator answers that as its vendor refuses a bad path).
 */
export function backendCwd(path: string, home: string): string | undefined {
  const cwd = validateCwd(path, { root: home });
  return cwd.path === "" ? undefined : cwd.path;
}
