import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { invalidRequest, SandportError } from "@sandport/core";
import { AnchoredDirectory } from "../files/anchored-directory.js";
import { errorCode } from "../files/file-errors.js";
import { removeTree } from "../files/remove-tree.js";
import { LOCAL_PROVIDER } from "../options.js";
import { abandonedStaging, STAGING_PREFIX, stagingName } from "../store/staging-name.js";
import { parseSnapshotRecord, type SnapshotRecord } from "./snapshot-record.js";

/** Directory of the root that holds the snapshots; a dot name, so never taken for a sandbox. */
const SNAPSHOTS = ".snapshots";
/** Name of the metadata file inside a snapshot directory. */
const RECORD_FILE = "snapshot.json";
/** Name of the copied workspace inside a snapshot directory. */
const FILES = "files";

const ID_PATTERN = /^snap-[0-9a-f]{20}$/;

/** What a lookup by id found. */
export type StoredSnapshot =
  | { readonly state: "absent" }
  | { readonly state: "foreign"; readonly reason: string }
  | { readonly state: "owned"; readonly record: SnapshotRecord };

/**
 * Snapshots on disk: `<root>/.snapshots/<id>/` holds `snapshot.json` (mode
 * 0600) and `files/`, a copy of a workspace. The whole area is the runtime's
 * alone (mode 0700): no command ever sees it, a launch copies `files/` into
 * the new sandbox's workspace. A snapshot appears atomically: it is built
 * under `.staging-<id>.…` (named like a sandbox's, so that a later runtime
 * reclaims a snapshot abandoned midway) and renamed into place.
 */
export class SnapshotStore {
  readonly #directory: string;
  readonly #owner: string;

  /**
   * @param root the sandbox root
   * @param owner the runtime's ownership marker, written into every record
   */
  constructor(root: string, owner: string) {
    this.#directory = join(root, SNAPSHOTS);
    this.#owner = owner;
  }

  /** A fresh snapshot id. */
  static newId(): string {
    return `snap-${randomBytes(10).toString("hex")}`;
  }

  /** Refuses an id that no local snapshot can have (it would name a path component). */
  static checkId(id: string): string {
    if (!ID_PATTERN.test(id)) {
      throw invalidRequest(
        `snapshot id ${JSON.stringify(id)} is not a local snapshot's (snap-<20 hex digits>)`,
        { field: "snapshot" },
        LOCAL_PROVIDER,
      );
    }
    return id;
  }

  /** Where a snapshot's copy of the workspace lives. */
  filesDirectory(id: string): string {
    return join(this.#directory, id, FILES);
  }

  /**
   * Writes a snapshot: its metadata, then `fill` copies the workspace into
   * the empty `files` directory it is given; then the whole appears at once.
   * A failure (or an abort inside `fill`) removes what was made.
   */
  async create(record: SnapshotRecord, fill: (files: string) => Promise<void>): Promise<void> {
    await mkdir(this.#directory, { mode: 0o700 }).catch((error) => {
      if (errorCode(error) !== "EEXIST") throw error;
    });
    const name = stagingName(record.id, this.#owner);
    const staging = join(this.#directory, name);
    try {
      await mkdir(staging, { mode: 0o700 });
      await mkdir(join(staging, FILES), { mode: 0o700 });
      await writeFile(join(staging, RECORD_FILE), JSON.stringify(record), { mode: 0o600, flag: "wx" });
      await fill(join(staging, FILES));
      await rename(staging, join(this.#directory, record.id));
    } catch (error) {
      await this.#removeEntry(name).catch(() => {});
      throw error;
    }
  }

  /** Looks a snapshot up. A directory without a well-formed record of this owner is foreign. */
  async read(id: string): Promise<StoredSnapshot> {
    let text: string;
    try {
      text = await readFile(join(this.#directory, id, RECORD_FILE), "utf8");
    } catch (error) {
      if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") throw error;
      const present = await readdir(join(this.#directory, id)).then(
        () => true,
        () => false,
      );
      return present ? { state: "foreign", reason: "it has no Sandport metadata" } : { state: "absent" };
    }
    const record = parseSnapshotRecord(text);
    if (!record || record.id !== id) return { state: "foreign", reason: "its metadata is not Sandport's" };
    if (record.owner !== this.#owner) {
      return { state: "foreign", reason: `it belongs to owner ${JSON.stringify(record.owner)}` };
    }
    return { state: "owned", record };
  }

  /** Every snapshot of this owner, in id order; foreign and half-made ones are skipped. Removes abandoned ones. */
  async list(): Promise<SnapshotRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.#directory);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return [];
      throw error;
    }
    const abandoned = names.filter((name) => name.startsWith(STAGING_PREFIX) && abandonedStaging(name, this.#owner));
    await Promise.all(abandoned.map((name) => this.#removeEntry(name).catch(() => {})));
    const records: SnapshotRecord[] = [];
    for (const name of names.filter((candidate) => ID_PATTERN.test(candidate)).sort()) {
      const found = await this.read(name);
      if (found.state === "owned") records.push(found.record);
    }
    return records;
  }

  /**
   * Removes a snapshot of ours and proves it gone. Its directory is renamed
   * aside first (so that it is never seen without its metadata, as a foreign
   * one), then taken apart.
   */
  async remove(id: string): Promise<void> {
    const doomed = `${STAGING_PREFIX}removing-${id}`;
    await rename(join(this.#directory, id), join(this.#directory, doomed)).catch((error) => {
      if (errorCode(error) !== "ENOENT") throw removalFailed(id, error);
    });
    await this.#removeEntry(doomed).catch((error) => {
      throw removalFailed(id, error);
    });
    const left = await readdir(this.#directory).catch(() => [] as string[]);
    if (left.includes(id) || left.includes(doomed)) {
      throw removalFailed(id, new Error(`${join(this.#directory, id)} is still on disk`));
    }
  }

  /** Removes `<snapshots>/<name>` whatever it holds. */
  async #removeEntry(name: string): Promise<void> {
    let directory: AnchoredDirectory;
    try {
      directory = AnchoredDirectory.open(this.#directory);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return;
      throw error;
    }
    try {
      await removeTree(directory, name);
    } finally {
      directory.close();
    }
  }
}

function removalFailed(id: string, cause: unknown): SandportError {
  return new SandportError({
    code: "DESTROY_UNVERIFIED",
    provider: LOCAL_PROVIDER,
    message: `snapshot ${id} could not be removed completely (${cause instanceof Error ? cause.message : String(cause)}); delete it again to finish`,
    details: { snapshotId: id },
    cause,
  });
}
