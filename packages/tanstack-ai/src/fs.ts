import { posix } from "node:path";
import { normalizeWorkspacePath, type SandboxHandle, SandportError, toSandboxPath, whenFound } from "@sandport/core";
import type { SandboxFs } from "@tanstack/ai-sandbox";
import { type HandleContext, requireMethod } from "./context.js";
import { sandboxPath } from "./paths.js";

const decoder = new TextDecoder();

/**
 * TanStack AI's `SandboxFs` over one sandbox's files. Paths are TanStack AI's
 * (`/workspace/...`, moved onto the runtime's workspace root) or relative to
 * the workspace. `read`, `readBytes` and `write` are the port's `readFile` and
 * `writeFiles`; `list`, `exists`, `mkdir` and `remove` need the runtime's
 * `listDir`, `stat`, `mkdir` and `remove` (else TanStack AI's
 * `UnsupportedCapabilityError`); `rename` runs `mv -T` in the sandbox (an
 * argument vector, no shell), since the port has no rename. There is no
 * `watch`: TanStack AI then polls with commands.
 */
export function sandportFs<H extends SandboxHandle>(context: HandleContext<H>): SandboxFs {
  const { runtime, sandbox } = context;
  const at = (path: string) => sandboxPath(path, runtime.workspaceRoot);
  return {
    read: async (path) => decoder.decode(await runtime.readFile(sandbox, at(path))),
    readBytes: async (path) => runtime.readFile(sandbox, at(path)),
    write: async (path, data) => runtime.writeFiles(sandbox, [{ path: at(path), content: data }]),
    list: async (path) => {
      const listDir = requireMethod(context, "listDir", "fs.list");
      const entries = await listDir(sandbox, at(path));
      const base = path.replace(/\/+$/, "");
      return entries.map((entry) => ({
        name: entry.name,
        path: `${base}/${entry.name}`,
        // A symlink is listed as itself, as Node's Dirent (and TanStack AI's local provider) does.
        type: entry.kind === "directory" ? ("dir" as const) : ("file" as const),
      }));
    },
    mkdir: async (path) => requireMethod(context, "mkdir", "fs.mkdir")(sandbox, at(path)),
    remove: async (path) => requireMethod(context, "remove", "fs.remove")(sandbox, at(path)),
    rename: async (from, to) => rename(context, at(from), at(to)),
    exists: async (path) => {
      const stat = requireMethod(context, "stat", "fs.exists");
      return (await whenFound(stat(sandbox, at(path)))) !== undefined;
    },
  };
}

/**
 * Moves `from` to `to` as `rename(2)` does: a file or directory, replacing a
 * file or an empty directory at `to`, never moving into a directory there
 * (`-T`). Both paths are checked as every port path is (inside the
 * workspace) before anything runs. A missing source or target parent rejects
 * with `NOT_FOUND`.
 */
async function rename<H extends SandboxHandle>(
  context: HandleContext<H>,
  source: string,
  target: string,
): Promise<void> {
  const { runtime, sandbox } = context;
  const inside = (path: string, field: string) =>
    toSandboxPath(
      runtime.workspaceRoot,
      normalizeWorkspacePath(path, { root: runtime.workspaceRoot, field, provider: runtime.provider }),
    );
  const from = inside(source, "from");
  const to = inside(target, "to");
  // Relative to the workspace, where the command starts: a runtime whose commands see the host's
  // filesystem (local `isolation: "none"`) has no directory at the sandbox's own paths.
  const relative = (path: string) => `./${posix.relative(runtime.workspaceRoot, path)}`;
  const result = await runtime.exec(sandbox, {
    argv: ["mv", "-T", "--", relative(from), relative(to)],
    env: { LC_ALL: "C" },
  });
  if (result.exitCode === 0) return;
  const reason = result.stderr.trim() || `mv exited ${result.exitCode}`;
  throw new SandportError({
    code: /No such file or directory/.test(result.stderr) ? "NOT_FOUND" : "UNEXPECTED",
    provider: runtime.provider,
    message: `could not rename ${from} to ${to}: ${reason}`,
    details: { exitCode: result.exitCode },
  });
}
