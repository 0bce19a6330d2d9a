import { randomUUID } from "node:crypto";
import { lstat, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { identify, isAlive } from "../processes/process-tree.js";
import { failureReason, type Leftover } from "../store/leftover-report.js";

// `<uuid>.<creator pid>.<creator start time>.sock`: the egress relays try every `.sock` of the directory.
const NAME_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(\d+)\.(\d+)\.sock$/;

/**
 * A name of its own for one runtime instance's egress proxy socket, in every
 * sandbox's egress directory: a random part (two instances never share one)
 * and the process that listens (pid and start time), so that once that
 * process is gone a later runtime can prove the socket file stale and remove
 * it ({@link reclaimEgressSockets}). Without an identity (not Linux) the
 * plain `<uuid>.sock`, never reclaimed.
 */
export function egressSocketName(creator = identify(process.pid)): string {
  return creator === undefined ? `${randomUUID()}.sock` : `${randomUUID()}.${creator.pid}.${creator.startTime}.sock`;
}

/** Whether `name` is an egress socket of {@link egressSocketName}'s form whose process is gone. */
export function staleEgressSocket(name: string): boolean {
  const match = NAME_PATTERN.exec(name);
  return match !== null && !isAlive({ pid: Number(match[1]), startTime: match[2] as string });
}

/**
 * Removes, from each of the given egress directories (of sandboxes this
 * runtime owns), the proxy sockets whose process is gone: a killed runtime
 * leaves its socket file behind, and every relay of the sandbox would try it
 * before the live ones. A socket of a live process is never touched.
 */
export async function reclaimEgressSockets(directories: readonly string[]): Promise<Leftover[]> {
  const leftovers: Leftover[] = [];
  for (const directory of directories) {
    const names = await readdir(directory).catch(() => [] as string[]);
    for (const name of names.filter(staleEgressSocket)) {
      const path = join(directory, name);
      try {
        if (!(await lstat(path)).isSocket()) continue;
        await unlink(path);
        leftovers.push({ kind: "socket", path, reclaimed: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        leftovers.push({ kind: "socket", path, reclaimed: false, reason: failureReason(error) });
      }
    }
  }
  return leftovers;
}
