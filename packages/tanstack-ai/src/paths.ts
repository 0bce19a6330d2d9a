import { posix } from "node:path";

/** The workspace root TanStack AI's code addresses (its `DEFAULT_WORKSPACE_ROOT`), whatever the sandbox's real one. */
export const VIRTUAL_WORKSPACE_ROOT = "/workspace";

/**
 * The path `path` names in a sandbox whose workspace is at `workspaceRoot`:
 * TanStack AI's virtual `/workspace` (and everything under it) is moved onto
 * the runtime's workspace root, as its own providers do; any other path is
 * kept, and the runtime then judges it (relative paths resolve against its
 * workspace; an absolute file path must lie under it, while a command's
 * `cwd` may be any directory of the sandbox, `/tmp` included).
 */
export function sandboxPath(path: string, workspaceRoot: string): string {
  if (workspaceRoot === VIRTUAL_WORKSPACE_ROOT) return path;
  if (path === VIRTUAL_WORKSPACE_ROOT) return workspaceRoot;
  if (path.startsWith(`${VIRTUAL_WORKSPACE_ROOT}/`)) {
    return posix.join(workspaceRoot, path.slice(VIRTUAL_WORKSPACE_ROOT.length + 1));
  }
  return path;
}
