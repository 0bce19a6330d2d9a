import { randomBytes } from "node:crypto";
import { link, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { errorCode } from "../files/file-errors.js";
import { isAlive } from "../processes/process-tree.js";
import { failureReason, type Leftover } from "./leftover-report.js";
import { abandonedBy } from "./staging-name.js";
import { parseMarker, type UidMarker } from "./uid-marker.js";
import { DRAFT_PREFIX } from "./uid-pool.js";
import { killProcessesOfUid } from "./uid-processes.js";

/** What {@link reclaimUidMarkers} works from. */
export interface UidReclaim {
  /** The uid pool's marker directory. */
  readonly directory: string;
  /** The sandbox root, as the runtime names it. */
  readonly root: string;
  /** Whether the root holds anything under sandbox id `id` (a live sandbox, or a directory in the way). */
  readonly holds: (id: string) => Promise<boolean>;
  /**
   * The runtime's uid range: the processes of an orphaned marker's uid
   * within it are killed before the marker goes (one outside it is only
   * given back: its uid may be anyone's).
   */
  readonly range?: { readonly first: number; readonly count: number };
}

/**
 * Gives back the uids that launches killed before their sandbox's record
 * existed still hold: markers (see `UidPool`) naming this root, taken by a
 * launch that is over (its process gone, or this process no longer launching
 * that id), for a sandbox the root does not hold. A marker of another root
 * (its own runtimes reclaim it), of a live launch or sandbox, or of an
 * earlier version's form (the id only) is never touched.
 *
 * Processes still running as the uid of such a marker (within `range`: the
 * runtime's own) are that launch's, started before its record existed: they
 * are killed first, and reported as `process` leftovers.
 *
 * The marker is renamed to a name of this call's own first and deleted only
 * if it is still the one proven orphaned, so that a uid given back and taken
 * again meanwhile keeps its new marker.
 */
export async function reclaimUidMarkers(input: UidReclaim): Promise<Leftover[]> {
  const names = await readdir(input.directory).catch(() => [] as string[]);
  const leftovers: Leftover[] = [];
  for (const name of names) {
    const path = join(input.directory, name);
    if (name.startsWith(DRAFT_PREFIX)) {
      // A draft a launch killed before it removed it left (see `UidPool.take`), whole or not: its name says who
      // wrote it, and a draft of a process that is gone is no one's.
      const [pid, startTime] = name.slice(DRAFT_PREFIX.length).split(".");
      const writer = { pid: Number(pid), startTime: startTime ?? "" };
      if (Number.isInteger(writer.pid) && writer.pid > 0 && writer.startTime !== "" && !isAlive(writer)) {
        const removed = await unlink(path).then(
          () => ({ kind: "uid" as const, path, reclaimed: true }),
          (error: unknown) => ({ kind: "uid" as const, path, reclaimed: false, reason: failureReason(error) }),
        );
        leftovers.push(removed);
      }
      continue;
    }
    if (!/^\d+$/.test(name)) continue;
    const text = await readFile(path, "utf8").catch(() => "");
    const marker = parseMarker(text);
    if (marker === undefined || !(await orphaned(marker, input))) continue;
    const uid = Number(name);
    const { range } = input;
    if (range && uid >= range.first && uid < range.first + range.count) {
      // The uid was that sandbox's alone: whatever still runs as it is its launch's (a namespace holder).
      const { killed, alive } = await killProcessesOfUid(uid);
      for (const pid of killed) {
        if (!alive.includes(pid)) leftovers.push({ kind: "process", path: `/proc/${pid}`, reclaimed: true });
      }
      if (alive.length > 0) {
        const reason = `processes ${alive.slice(0, 8).join(", ")} of uid ${uid} are still alive`;
        leftovers.push({ kind: "uid", path, reclaimed: false, reason });
        continue;
      }
    }
    const leftover = await removeMarker(path, text);
    if (leftover) leftovers.push(leftover);
  }
  return leftovers;
}

/** Whether `marker` is this root's and nothing will use or give it back. */
async function orphaned(marker: UidMarker, input: UidReclaim): Promise<boolean> {
  if (marker.root !== input.root || !abandonedBy(marker.launcher, marker.sandboxId)) return false;
  return !(await input.holds(marker.sandboxId));
}

/**
 * Deletes the marker at `path` if it still reads `text`; one that changed
 * meanwhile (taken again) is put back and is no leftover (`undefined`).
 */
async function removeMarker(path: string, text: string): Promise<Leftover | undefined> {
  const aside = `${path}.reclaim-${randomBytes(6).toString("hex")}`;
  try {
    await rename(path, aside);
  } catch (error) {
    // Gone meanwhile: given back by another reclaim (or its destroy), which is what was wanted.
    if (errorCode(error) === "ENOENT") return { kind: "uid", path, reclaimed: true };
    return { kind: "uid", path, reclaimed: false, reason: failureReason(error) };
  }
  try {
    if ((await readFile(aside, "utf8")) !== text) {
      await link(aside, path).catch(() => {});
      await unlink(aside);
      return undefined;
    }
    await unlink(aside);
    return { kind: "uid", path, reclaimed: true };
  } catch (error) {
    return { kind: "uid", path, reclaimed: false, reason: failureReason(error) };
  }
}
