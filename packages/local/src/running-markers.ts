import { mkdir, readdir, readFile, unlink, writeFile } from "node:fs/promises";
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
   * Records `pid`; the returned function removes the record again. Never
   * throws. The write happens off the event loop, beside the command's start
   * (creating a file can take a disk journal's time); removal waits for it.
   */
  add(pid: number): () => void {
    const owner = ownerIdentity();
    if (!owner) return () => {};
    // A pid names one live process at a time, so it names its marker too; a stale marker is overwritten.
    const path = join(this.#directory, `${pid}.json`);
    const text = JSON.stringify({ pid, owner } satisfies Marker);
    // Settles `true` once written, `false` if it could not be; never rejects.
    const written = writeFile(path, text)
      .catch(async (error: NodeJS.ErrnoException) => {
        // A sandbox made by an older version has no `running/` until its first command.
        if (error.code !== "ENOENT") throw error;
        // Not recursive: a sandbox destroyed meanwhile must not reappear.
        await mkdir(this.#directory, { mode: 0o700 }).catch(() => {});
        await writeFile(path, text);
      })
      .then(
        () => true,
        () => false,
      );
    return () => {
      void written.then((exists) =>
        exists
          ? unlink(path).catch(() => {
              // Already gone (the sandbox was destroyed).
            })
          : undefined,
      );
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
