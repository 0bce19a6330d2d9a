import { mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { identify, isAlive, type ProcessIdentity, signalGroup } from "./process-tree.js";

/** What a marker file holds: the command's leading pid and the process that runs it. */
interface Marker {
  readonly pid: number;
  readonly owner: ProcessIdentity;
}

let owner: ProcessIdentity | undefined;

/** This process's identity, read once. */
function ownerIdentity(): ProcessIdentity | undefined {
  owner ??= identify(process.pid);
  return owner;
}

/**
 * One small file per running command in `<sandbox>/running/`, naming the host
 * process that leads its process group (bubblewrap, or the command itself under
 * `none`). `destroy`, in any process, reads them to stop commands that other
 * processes are running in the sandbox. A marker whose owner process has died
 * is ignored: bubblewrap died with it (`--die-with-parent`); a command under
 * `none` may have survived it, and is found by its `SANDPORT_LOCAL_COMMAND_ID` instead
 * (see `command-marker.ts`).
 */
export class RunningMarkers {
  readonly #directory: string;

  /** @param directory the sandbox's `running/` directory */
  constructor(directory: string) {
    this.#directory = directory;
  }

  /**
   * Records `pid`; the returned function removes the record again. Never throws.
   * Synchronous on purpose: two tiny file operations cost far less than two
   * thread-pool round trips, and they sit on every command's path.
   */
  add(pid: number): () => void {
    const owner = ownerIdentity();
    if (!owner) return () => {};
    // A pid names one live process at a time, so it names its marker too; a stale marker is overwritten.
    const path = join(this.#directory, `${pid}.json`);
    const text = JSON.stringify({ pid, owner } satisfies Marker);
    try {
      try {
        writeFileSync(path, text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        mkdirSync(this.#directory, { recursive: true, mode: 0o700 });
        writeFileSync(path, text);
      }
    } catch {
      return () => {};
    }
    return () => {
      try {
        unlinkSync(path);
      } catch {
        // Already gone (the sandbox was destroyed).
      }
    };
  }

  /** SIGKILLs the process group of every recorded command still alive; returns their identities. */
  async killAll(): Promise<ProcessIdentity[]> {
    const names = await readdir(this.#directory).catch(() => [] as string[]);
    const killed: ProcessIdentity[] = [];
    for (const name of names) {
      const marker = await readFile(join(this.#directory, name), "utf8")
        .then((text) => JSON.parse(text) as Marker)
        .catch(() => undefined);
      // While its owner lives, the command is the owner's unreaped child, so its pid cannot have been reused.
      if (!marker || !isAlive(marker.owner)) continue;
      const identity = identify(marker.pid);
      if (!identity) continue;
      signalGroup(identity.pid, "SIGKILL");
      killed.push(identity);
    }
    return killed;
  }
}
