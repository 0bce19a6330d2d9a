import { chmod, stat } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { SandportError } from "@sandport/core";
import { errorCode } from "../files/file-errors.js";
import { makeDirectories } from "../files/make-directories.js";
import type { FileOwner } from "../files/workspace-walk.js";
import { LOCAL_PROVIDER } from "../options.js";

/**
 * Creates the sandbox root `root` and its missing parents (`UNSUPPORTED`
 * naming the path when it cannot). When commands run as another host user
 * (`fileOwner`), that user must pass through the root and every parent made
 * for it (made so here). Returns the outermost parent that was already there
 * and others cannot pass through (a `mkdtemp` directory, mode 0700), if any:
 * commands then reach the root through a mount namespace of their own (see
 * `bridgedSpawn`), since this runtime does not change a directory it did not make.
 */
export async function createRoot(root: string, fileOwner: FileOwner | undefined): Promise<string | undefined> {
  let firstCreated: string | undefined;
  try {
    // 0o711 on every directory made here: a runtime whose commands run as the sandbox user may use the same root
    // later, and must pass through all of it; the sandboxes inside are 0o700 (or 0o711 with private contents).
    firstCreated = await makeDirectories(root, 0o711);
  } catch (error) {
    throw new SandportError({
      code: "UNSUPPORTED",
      provider: LOCAL_PROVIDER,
      message:
        `cannot create the sandbox root ${root} (${errorCode(error) ?? String(error)}): ` +
        "choose a writable directory with new LocalRuntime({ root })",
      details: { root },
      cause: error,
    });
  }
  if (!fileOwner) return undefined;
  // Commands run as the sandbox user, who must pass through the root and every parent created for it.
  for (const directory of [...createdParents(firstCreated, root), root]) {
    const mode = (await stat(directory)).mode & 0o7777;
    if ((mode & 0o011) !== 0o011) await chmod(directory, mode | 0o011);
  }
  return closedParent(root);
}

/**
 * The outermost parent of `path` that others cannot pass through (no `o+x`),
 * if any: the sandbox user, who is neither its owner nor in its group, stops there.
 */
export async function closedParent(path: string): Promise<string | undefined> {
  let outermost: string | undefined;
  for (let directory = dirname(path); ; directory = dirname(directory)) {
    if (((await stat(directory)).mode & 0o001) === 0) outermost = directory;
    if (directory === dirname(directory)) return outermost;
  }
}

/** The first of `paths` that is `directory` or lies under it (hidden from commands when `directory` is covered). */
export function firstWithin(directory: string, paths: readonly string[]): string | undefined {
  return paths.find((path) => {
    const rest = relative(directory, path);
    return rest === "" || (!rest.startsWith("..") && !rest.startsWith("/"));
  });
}

/** The directories `mkdir -p root` created above `root`, outermost first (`firstCreated` is what it returned). */
function createdParents(firstCreated: string | undefined, root: string): string[] {
  const parents: string[] = [];
  if (firstCreated === undefined) return parents;
  for (let directory = dirname(root); directory.length >= firstCreated.length; directory = dirname(directory)) {
    parents.unshift(directory);
    if (directory === firstCreated) break;
  }
  return parents;
}
