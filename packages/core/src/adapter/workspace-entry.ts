import { posix } from "node:path";

/**
 * Where a command in the workspace root starts, and how its own script names
 * the workspace from there ({@link workspaceEntry}).
 */
export interface WorkspaceEntry {
  /** The directory the vendor starts the command in (absolute): `home`, or `/` for a workspace outside it. */
  readonly start: string;
  /**
   * The workspace as the script names it from `start`: `./<path>` under
   * home (`.` for home itself, never a leading `-`), else its absolute path.
   * Hand it to `enterCwdScript(path, path)` or `enterWorkspaceScript(path)`.
   */
  readonly path: string;
}

/**
 * For an adapter whose launch does not make the workspace, and whose vendor
 * starts a command in a `cwd` of its own field: the command in the workspace
 * root starts in the sandbox user's `home`, which every sandbox has, and its
 * script makes (when missing) and enters the workspace by its path relative
 * to home. Named from home, the workspace is wherever the sandbox's home is:
 * an emulator that runs a sandbox's commands in a directory of its own
 * standing for that home makes it there, never on its own host. A workspace
 * outside home starts in `/` and is named by its absolute path.
 */
export function workspaceEntry(home: string, workspace: string): WorkspaceEntry {
  const relative = posix.relative(home, workspace);
  if (relative === ".." || relative.startsWith("../") || posix.isAbsolute(relative)) {
    return { start: "/", path: workspace };
  }
  return { start: home, path: relative === "" ? "." : `./${relative}` };
}
