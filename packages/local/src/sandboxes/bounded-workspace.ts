import { unsupported } from "@sandport/core";
import type { DiskSupport } from "../disk/disk-support.js";
import { diskMounted, mountWorkspaceDisk } from "../disk/workspace-disk.js";
import { LOCAL_PROVIDER } from "../options.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import { notFound, type SandboxStore } from "../store/sandbox-store.js";

/**
 * Proves a bounded workspace mounted, and mounts its image again when it is
 * not (the host restarted since the launch: mounts do not survive that, the
 * image does). Two runtimes doing so at once are safe: `mount` refuses an
 * image that is already mounted, and the loser finds it mounted. Without the
 * means to mount here (`disk`), `UNSUPPORTED`: the workspace is unreachable,
 * never replaced by a host directory. `NOT_FOUND` when the sandbox was
 * destroyed meanwhile.
 */
export async function remountWorkspace(store: SandboxStore, record: SandboxRecord, disk: DiskSupport): Promise<void> {
  const directory = store.sandboxDirectory(record.id);
  if (diskMounted(directory)) return;
  if (!disk.ok) {
    throw unsupported(
      LOCAL_PROVIDER,
      "resources.diskMiB",
      `sandbox ${record.id} has a bounded workspace whose image is not mounted (the host restarted?), and this runtime cannot mount it: ${disk.reason}`,
    );
  }
  try {
    await mountWorkspaceDisk(disk.tools, directory);
  } catch (error) {
    // Destroyed meanwhile: its image went with it.
    if ((await store.read(record.id)).state === "absent") throw notFound(record.id);
    // Mounted by another runtime meanwhile: as good.
    if (!diskMounted(directory)) throw error;
  }
}
