import { readdir, rename, rmdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { SandportError } from "@sandport/core";
import type { DiskTools } from "../disk/disk-support.js";
import { unmountWorkspaceDisk } from "../disk/workspace-disk.js";
import { AnchoredDirectory } from "../files/anchored-directory.js";
import { errorCode, pathExists } from "../files/file-errors.js";
import { removeTree } from "../files/remove-tree.js";
import { LOCAL_PROVIDER } from "../options.js";
import { RECORD_FILE, type SandboxLayout } from "./sandbox-layout.js";
import { STAGING_PREFIX } from "./staging-name.js";
import { UidPool } from "./uid-pool.js";

/** What removing a sandbox needs of its store. */
export interface RemovalSite {
  /** Where the sandbox's parts are. */
  readonly layout: SandboxLayout;
  /** The programs that unmount a bounded workspace, where this process has them. */
  readonly disk: DiskTools | undefined;
  /** Removes `<root>/<name>` whatever it holds, a mounted workspace image unmounted first. */
  removeInRoot(name: string): Promise<void>;
}

/**
 * Removes the sandbox directory and proves it gone, or rejects with
 * `DESTROY_UNVERIFIED` leaving the sandbox findable, so that a later call
 * finishes the job.
 *
 * Everything but the metadata goes first, with `removeTree` (any depth,
 * unreadable directories, planted symlinks). Only then is the directory,
 * now holding just its metadata, renamed aside to `.staging-removing-<id>`
 * (so that it is never seen half-removed, without metadata, as a foreign
 * sandbox) and deleted; if that fails, it is renamed back. An earlier
 * removal of the same id that stopped after the rename is finished too.
 *
 * The removal that renamed the directory aside (one only, in any process)
 * then gives back the sandbox's uid (its `uidMarker`, see `UidPool`):
 * nothing of the sandbox runs or is on disk but its metadata.
 *
 * @param names the sandbox directory's entries when the caller has just
 *   listed them (entries made since are still found: the final `rmdir`
 *   fails and the whole directory is taken apart)
 * @param uidMarker the marker of the sandbox's own uid (`SandboxRecord.uidMarker`), when it has one
 */
export async function removeSandbox(
  site: RemovalSite,
  id: string,
  names?: readonly string[],
  uidMarker?: string,
): Promise<void> {
  const { layout, disk } = site;
  const doomed = `${STAGING_PREFIX}removing-${id}`;
  let sandbox: AnchoredDirectory | undefined;
  try {
    sandbox = AnchoredDirectory.open(layout.sandboxDirectory(id));
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw removalFailed(id, error);
  }
  if (sandbox) {
    try {
      // A bounded workspace goes with its file system: unmounted (proven), then its image is an ordinary file.
      await unmountWorkspaceDisk(layout.sandboxDirectory(id), disk);
      for (const name of names ?? (await readdir(sandbox.path))) {
        if (name !== RECORD_FILE) await removeTree(sandbox, name);
      }
    } catch (error) {
      throw removalFailed(id, error);
    } finally {
      sandbox.close();
    }
    const renamed = await rename(layout.sandboxDirectory(id), join(layout.root, doomed)).then(
      () => true,
      (error) => {
        // Absent: a concurrent removal renamed it first; finish its work below.
        if (errorCode(error) !== "ENOENT") throw removalFailed(id, error);
        return false;
      },
    );
    if (renamed && uidMarker !== undefined) await UidPool.giveBack(uidMarker, id).catch(() => {});
    // The usual case: the metadata is all that is left.
    if (renamed && (await removeRecordDirectory(layout.root, doomed))) return;
  }
  await site.removeInRoot(doomed).catch(async (error) => {
    // Back where lookups find it (while it has its metadata), so that any instance can finish the job.
    if (await pathExists(join(layout.root, doomed, RECORD_FILE))) {
      await rename(join(layout.root, doomed), layout.sandboxDirectory(id)).catch(() => {});
    }
    throw removalFailed(id, error);
  });
  for (const path of [join(layout.root, doomed), layout.sandboxDirectory(id)]) {
    if (await pathExists(path)) throw removalFailed(id, new Error(`${path} is still on disk`));
  }
}

/** Deletes `<root>/<name>/sandbox.json` and then `<root>/<name>`; `false` when that did not remove it. */
async function removeRecordDirectory(root: string, name: string): Promise<boolean> {
  const directory = join(root, name);
  try {
    await unlink(join(directory, RECORD_FILE));
    await rmdir(directory);
    return true;
  } catch {
    return false;
  }
}

/** `DESTROY_UNVERIFIED`: a sandbox's files could not all be removed; it stays findable for a retry. */
function removalFailed(id: string, cause: unknown): SandportError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SandportError({
    code: "DESTROY_UNVERIFIED",
    provider: LOCAL_PROVIDER,
    message: `sandbox ${id} could not be removed completely (${reason}); destroy it again to finish`,
    details: { sandboxId: id },
    cause,
  });
}
