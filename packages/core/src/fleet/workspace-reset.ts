import { toSandportError } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";

/**
 * The workspace's top-level entries, one a line: `empty-dir <name>` for an
 * empty directory (not a link), `other <name>` for anything else. POSIX `sh`
 * only, run with the workspace as its working directory.
 */
const LIST_SCRIPT = `for entry in .[!.]* ..?* *; do
  if [ ! -e "$entry" ] && [ ! -L "$entry" ]; then continue; fi
  if [ -d "$entry" ] && [ ! -L "$entry" ] && [ -z "$(ls -A -- "$entry")" ]; then
    echo "empty-dir $entry"
  else
    echo "other $entry"
  fi
done`;

/**
 * Removes every top-level entry of the workspace except the directories named
 * in its arguments, which it empties instead. A link is removed, never
 * followed (nor is its target's mode changed): under a runtime without
 * isolation it may point at the host. Entries made read-only are made
 * writable by their owner first, so a lease cannot pin its files.
 */
const CLEAN_SCRIPT = `set -e
for entry in .[!.]* ..?* *; do
  if [ ! -e "$entry" ] && [ ! -L "$entry" ]; then continue; fi
  kept=no
  for name in "$@"; do if [ "$entry" = "$name" ]; then kept=yes; fi; done
  if [ -L "$entry" ]; then rm -f -- "$entry"; continue; fi
  chmod -R u+rwx -- "$entry" 2>/dev/null || true
  if [ "$kept" = yes ] && [ -d "$entry" ]; then
    find "$entry" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +
  else
    rm -rf -- "$entry"
  fi
done`;

/** What a workspace holds at its top level. */
export interface WorkspaceLayout {
  /** Empty directories (a runtime's own, such as a temporary directory). */
  readonly emptyDirectories: readonly string[];
  /** Every other entry. */
  readonly others: readonly string[];
}

/** Lists the workspace's top level ({@link WorkspaceLayout}). Rejects when the listing fails. */
export async function workspaceLayout(
  runtime: SandboxRuntime,
  handle: SandboxHandle,
  timeoutMs: number,
): Promise<WorkspaceLayout> {
  const result = await runtime.exec(handle, { argv: ["sh", "-c", LIST_SCRIPT] }, { timeoutMs });
  if (result.exitCode !== 0) throw failed(runtime, handle, "listing the workspace", result.exitCode, result.stderr);
  const emptyDirectories: string[] = [];
  const others: string[] = [];
  for (const line of result.stdout.split("\n")) {
    if (line.startsWith("empty-dir ")) emptyDirectories.push(line.slice("empty-dir ".length));
    else if (line.startsWith("other ")) others.push(line.slice("other ".length));
  }
  return { emptyDirectories: emptyDirectories.sort(), others: others.sort() };
}

/**
 * The layout of a freshly launched sandbox's workspace when a clean can
 * restore it (`fresh`: only empty directories), nothing when it cannot (a
 * template put files there: such a sandbox is reset by replacement), or the
 * `problem` when it could not even be listed. Never throws.
 */
export async function restorableLayout(
  runtime: SandboxRuntime,
  handle: SandboxHandle,
  timeoutMs: number,
): Promise<{ readonly fresh?: WorkspaceLayout; readonly problem?: SandportError }> {
  try {
    const layout = await workspaceLayout(runtime, handle, timeoutMs);
    return layout.others.length === 0 ? { fresh: layout } : {};
  } catch (error) {
    return { problem: toSandportError(error, runtime.provider) };
  }
}

/**
 * Empties the workspace back to `fresh` (its layout at launch, which must
 * hold only empty directories), then lists it again and rejects unless it is
 * laid out exactly so: a clean is proven, never assumed.
 */
export async function cleanWorkspace(
  runtime: SandboxRuntime,
  handle: SandboxHandle,
  fresh: WorkspaceLayout,
  timeoutMs: number,
): Promise<void> {
  const argv = ["sh", "-c", CLEAN_SCRIPT, "sh", ...fresh.emptyDirectories];
  const result = await runtime.exec(handle, { argv }, { timeoutMs });
  if (result.exitCode !== 0) throw failed(runtime, handle, "cleaning the workspace", result.exitCode, result.stderr);
  const after = await workspaceLayout(runtime, handle, timeoutMs);
  const same =
    after.others.length === 0 &&
    after.emptyDirectories.length === fresh.emptyDirectories.length &&
    after.emptyDirectories.every((name, index) => name === fresh.emptyDirectories[index]);
  if (!same) {
    throw new SandportError({
      code: "UNEXPECTED",
      provider: runtime.provider,
      message:
        `sandbox ${handle.id}: after cleaning, the workspace holds ${JSON.stringify([...after.others, ...after.emptyDirectories])}, ` +
        `not the ${JSON.stringify(fresh.emptyDirectories)} it had at launch`,
      details: { sandboxId: handle.id, left: after.others },
    });
  }
}

function failed(
  runtime: SandboxRuntime,
  handle: SandboxHandle,
  what: string,
  exitCode: number | null,
  stderr: string,
): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: runtime.provider,
    message: `sandbox ${handle.id}: ${what} exited ${exitCode}: ${stderr.trim().slice(0, 500)}`,
    details: { sandboxId: handle.id, exitCode },
  });
}
