import { randomBytes, randomInt } from "node:crypto";
import { chmod, link, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SandportError } from "@sandport/core";
import { errorCode } from "../files/file-errors.js";
import { makeDirectories } from "../files/make-directories.js";
import { LOCAL_PROVIDER, type SandboxUser, type UidRange } from "../options.js";
import { identify } from "../processes/process-tree.js";
import { markerHolder, markerText } from "./uid-marker.js";

/**
 * Start of a marker's draft's name, then the taking process's pid and start
 * time: the draft is written whole, then linked to the uid's name.
 */
export const DRAFT_PREFIX = ".taking-";
/** What a sandbox took from a {@link UidPool}: its user, and the marker that holds the uid for it. */
export interface TakenUid {
  readonly user: SandboxUser;
  /** Absolute path of the marker file, given back with {@link UidPool.giveBack}. */
  readonly marker: string;
}

/**
 * The host uids a root runtime gives its sandboxes, one each, shared by every
 * runtime on the host that uses the same marker directory (whatever its
 * root), in any process. A uid is in use while `<directory>/<uid>` exists:
 * taking one is an exclusive create of that file (`O_CREAT | O_EXCL`, which
 * the kernel grants to one caller only), holding the sandbox's id and who
 * took it (the root, the launching process: see `markerText`, so that a
 * launch killed before its record exists can be proven orphaned, see
 * `reclaimUidMarkers`); giving it
 * back deletes the file, and only when it still names that sandbox (see
 * `SandboxStore.remove`: only the destroy that moved the sandbox directory
 * aside, one in any process, does). The gid is the same number. The search starts at a
 * random uid of the range, so a uid given back is not the next one taken.
 */
export class UidPool {
  readonly #directory: string;
  readonly #range: Pick<UidRange, "first" | "count">;

  /**
   * @param directory where the markers live (created, mode 0700, when missing)
   * @param range the uids this runtime may give out
   */
  constructor(directory: string, range: Pick<UidRange, "first" | "count">) {
    this.#directory = directory;
    this.#range = range;
  }

  /** The user of uid `uid` (its gid is the same number). */
  static userOf(uid: number): SandboxUser {
    return Object.freeze({ uid, gid: uid });
  }

  /**
   * Takes a free uid for sandbox `sandboxId`, launched by this process into
   * sandbox root `root`. `UNSUPPORTED` when every uid of the range is in use
   * (destroy a sandbox or widen `sandboxUids`).
   */
  async take(sandboxId: string, root: string): Promise<TakenUid> {
    // Parents made here stay passable (a sandbox root may be beside it, e.g. under /var/lib/sandport); the markers do not.
    if ((await makeDirectories(this.#directory, 0o711)) !== undefined) await chmod(this.#directory, 0o700);
    const { first, count } = this.#range;
    const text = markerText(sandboxId, root, identify(process.pid));
    const start = randomInt(0, count);
    // Written whole under a name of its own, then linked to the uid's name (which fails if it is taken): a
    // launch killed midway leaves a whole marker or none, never an empty one no reclaim could read.
    const self = identify(process.pid);
    const by = self === undefined ? "" : `${self.pid}.${self.startTime}.`;
    const draft = join(this.#directory, `${DRAFT_PREFIX}${by}${randomBytes(8).toString("hex")}`);
    await writeFile(draft, text, { flag: "wx", mode: 0o600 });
    try {
      for (let step = 0; step < count; step++) {
        const uid = first + ((start + step) % count);
        try {
          const marker = join(this.#directory, String(uid));
          await link(draft, marker);
          return { user: UidPool.userOf(uid), marker };
        } catch (error) {
          if (errorCode(error) !== "EEXIST") throw error;
        }
      }
    } finally {
      await unlink(draft).catch(() => {});
    }
    throw new SandportError({
      code: "UNSUPPORTED",
      provider: LOCAL_PROVIDER,
      message:
        `every uid of sandboxUids (${first} to ${first + count - 1}) belongs to a sandbox: ` +
        "destroy one, or give the runtime a wider range",
      details: { first, count },
    });
  }

  /**
   * Gives back the uid `sandboxId` took, once nothing of the sandbox is left
   * (its processes and files proven gone). Idempotent; a marker naming
   * another sandbox (or none) is left alone.
   */
  static async giveBack(marker: string, sandboxId: string): Promise<void> {
    let holder: string;
    try {
      holder = markerHolder(await readFile(marker, "utf8"));
    } catch (error) {
      if (errorCode(error) === "ENOENT") return;
      throw error;
    }
    if (holder !== sandboxId) return;
    await unlink(marker).catch((error) => {
      if (errorCode(error) !== "ENOENT") throw error;
    });
  }
}
