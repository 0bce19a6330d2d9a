import { mkdir, readdir, readlink, rmdir, symlink, unlink } from "node:fs/promises";
import { join } from "node:path";
import {
  descendants,
  identify,
  identifyLater,
  isAlive,
  type ProcessIdentity,
  signalGroup,
  signalProcess,
} from "./process-tree.js";

/** What a marker holds: the command's leading process and the process that runs it. */
interface Marker {
  readonly pid: number;
  /** The leading process's start time: a pid that names another process now is left alone. */
  readonly startTime?: string;
  readonly owner: ProcessIdentity;
}

let owner: ProcessIdentity | undefined;

/** This process's identity, read once. */
function ownerIdentity(): ProcessIdentity | undefined {
  owner ??= identify(process.pid);
  return owner;
}

/** What {@link RunningMarkers.add} returns. */
export interface MarkerRegistration {
  /** Settles `true` once the marker is in place, `false` if it could not be written; never rejects. */
  readonly written: Promise<boolean>;
  /** Removes the marker (after it is written); never throws. */
  readonly remove: () => void;
}

/**
 * One marker per running command in `<sandbox>/running/`, naming the host
 * process that leads its process group (bubblewrap, or the command itself under
 * `none`). `destroy`, in any process, reads them to stop commands that other
 * processes are running in the sandbox. A marker whose owner process has died
 * is ignored: bubblewrap died with it (`--die-with-parent`); a command under
 * `none` may have survived it, and is found by its `SANDPORT_LOCAL_COMMAND_ID` instead
 * (see `command-marker.ts`).
 *
 * A marker is a symlink named after the pid whose target is the marker's JSON,
 * never followed: made, read and removed with one call each, where a file
 * takes three calls to write (every command pays for its marker).
 */
export class RunningMarkers {
  readonly #directory: string;

  /** @param directory the sandbox's `running/` directory */
  constructor(directory: string) {
    this.#directory = directory;
  }

  /**
   * Records `pid`; `remove` removes the record again, and `written` settles
   * `true` once the record is in place (`false` if it could not be written,
   * or the command has ended already; never rejects). Never throws. The write
   * happens off the event loop, beside the command's start (creating a
   * directory entry can take a disk journal's time); removal waits for it.
   */
  add(pid: number): MarkerRegistration {
    const owner = ownerIdentity();
    if (!owner) return { written: Promise.resolve(false), remove: () => {} };
    const path = join(this.#directory, String(pid));
    // Settles `true` once written, `false` if it could not be (or the command has ended already); never rejects.
    const written = identifyLater(pid).then(
      async (leader) => {
        if (!leader) return false;
        await this.#place(path, JSON.stringify({ pid, startTime: leader.startTime, owner } satisfies Marker));
        return true;
      },
      () => false,
    );
    const remove = () => {
      void written.then((exists) =>
        exists
          ? unlink(path).catch(() => {
              // Already gone (the sandbox was destroyed).
            })
          : undefined,
      );
    };
    return { written, remove };
  }

  /**
   * For `destroy`: SIGKILLs the process group of every recorded command still
   * alive and returns the identities to wait on: each leader and every process
   * below it (under bubblewrap those die a moment after the leader, with its
   * pid namespace). When there are no markers (the usual
   * case) it just removes the empty directory, one call instead of a listing.
   */
  async killAll(): Promise<ProcessIdentity[]> {
    const empty = await rmdir(this.#directory).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === "ENOENT",
    );
    if (empty) return [];
    const names = await readdir(this.#directory).catch(() => [] as string[]);
    const killed: ProcessIdentity[] = [];
    for (const name of names) {
      const marker = await readlink(join(this.#directory, name))
        .then((text) => JSON.parse(text) as Marker)
        .catch(() => undefined);
      if (!marker) continue;
      // The owner reaps its commands at once, so a marker may outlive its command for a moment, and a dead
      // owner's marker may stay for ever: the start time tells whether the pid still names its command. A dead
      // owner's marker without one (none is written so) is never trusted.
      if (marker.startTime === undefined && !isAlive(marker.owner)) continue;
      const identity = identify(marker.pid);
      if (!identity || (marker.startTime !== undefined && identity.startTime !== marker.startTime)) continue;
      // Found before the kill: once the leader is gone, its namespace's processes are no longer its descendants.
      const below = descendants(identity.pid);
      signalGroup(identity.pid, "SIGKILL");
      // A descendant in a session of its own (bubblewrap's command, a setsid) is outside the group.
      for (const process of below) signalProcess(process.pid, "SIGKILL");
      killed.push(identity, ...below);
    }
    return killed;
  }

  async #place(path: string, marker: string): Promise<void> {
    try {
      await symlink(marker, path);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A pid names one live process at a time: a marker already there is stale (its runtime died).
      if (code === "EEXIST") await unlink(path).catch(() => {});
      // A sandbox made by an older version has no `running/` until its first command. Not recursive:
      // a sandbox destroyed meanwhile must not reappear.
      else if (code === "ENOENT") await mkdir(this.#directory, { mode: 0o700 }).catch(() => {});
      else throw error;
    }
    await symlink(marker, path);
  }
}
