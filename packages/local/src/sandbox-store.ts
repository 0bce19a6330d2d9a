import { randomBytes } from "node:crypto";
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { invalidRequest, SandportError } from "@sandport/core";
import { LOCAL_PROVIDER } from "./options.js";
import { parseSandboxRecord, type SandboxRecord } from "./sandbox-record.js";

/** Name of the workspace directory inside a sandbox directory. */
const WORKSPACE = "workspace";
/** Name of the metadata file inside a sandbox directory. */
const RECORD_FILE = "sandbox.json";
/** Name of the async-command area inside a sandbox directory (outside the workspace). */
const COMMANDS = "commands";
/** Name of the running-command markers directory inside a sandbox directory. */
const RUNNING = "running";
/** Directory inside the workspace that `TMPDIR` points at. */
export const WORKSPACE_TMP = ".tmp";
/** Prefix of half-built sandboxes; never listed, never a valid id. */
const STAGING_PREFIX = ".staging-";

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** What a lookup by id found. */
export type StoredSandbox =
  | { readonly state: "absent" }
  | { readonly state: "foreign"; readonly reason: string }
  | { readonly state: "owned"; readonly record: SandboxRecord };

/**
 * Sandboxes on disk: `<root>/<id>/` holds `sandbox.json` (metadata, mode 0600),
 * `workspace/` (the only directory commands may write), `commands/` (async
 * command records and output) and `running/` (markers of running commands). A sandbox appears atomically: it is built under
 * `<root>/.staging-<id>` and renamed into place, so a sandbox directory always
 * has its metadata.
 */
export class SandboxStore {
  /** Absolute root directory. */
  readonly root: string;
  readonly #owner: string;
  #rootReady: Promise<void> | undefined;

  constructor(root: string, owner: string) {
    this.root = root;
    this.#owner = owner;
  }

  /** A fresh sandbox id. */
  static newId(): string {
    return `sbx-${randomBytes(10).toString("hex")}`;
  }

  /** Refuses an id that could not have come from a sandbox (it names a path component). */
  static checkId(id: unknown): string {
    if (typeof id !== "string" || !ID_PATTERN.test(id)) {
      throw invalidRequest(`sandbox id ${JSON.stringify(id)} is malformed`, { field: "id" }, LOCAL_PROVIDER);
    }
    return id;
  }

  sandboxDirectory(id: string): string {
    return join(this.root, id);
  }

  workspaceDirectory(id: string): string {
    return join(this.root, id, WORKSPACE);
  }

  commandsDirectory(id: string): string {
    return join(this.root, id, COMMANDS);
  }

  runningDirectory(id: string): string {
    return join(this.root, id, RUNNING);
  }

  /**
   * Creates a sandbox directory with its metadata and an empty workspace (plus
   * its `.tmp`). `commands/` and `running/` are created when first needed.
   */
  async create(record: SandboxRecord): Promise<void> {
    this.#rootReady ??= mkdir(this.root, { recursive: true, mode: 0o700 }).then(
      () => {},
      (error) => {
        this.#rootReady = undefined;
        throw error;
      },
    );
    await this.#rootReady;
    const staging = join(this.root, `${STAGING_PREFIX}${record.id}`);
    try {
      await mkdir(staging, { mode: 0o700 }).catch(async (error: NodeJS.ErrnoException) => {
        // The root was removed since this store created it.
        if (error.code !== "ENOENT") throw error;
        await mkdir(this.root, { recursive: true, mode: 0o700 });
        await mkdir(staging, { mode: 0o700 });
      });
      await mkdir(join(staging, WORKSPACE, WORKSPACE_TMP), { recursive: true, mode: 0o755 });
      await writeFile(join(staging, RECORD_FILE), JSON.stringify(record), { mode: 0o600, flag: "wx" });
      await rename(staging, this.sandboxDirectory(record.id));
    } catch (error) {
      await rm(staging, { recursive: true, force: true }).catch(() => {});
      throw error;
    }
  }

  /** Looks a sandbox up. A directory without a well-formed record of this owner is foreign. */
  async read(id: string): Promise<StoredSandbox> {
    let text: string;
    try {
      text = await readFile(join(this.sandboxDirectory(id), RECORD_FILE), "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      return (await exists(this.sandboxDirectory(id)))
        ? { state: "foreign", reason: "it has no Sandport metadata" }
        : { state: "absent" };
    }
    const record = parseSandboxRecord(text);
    if (!record || record.id !== id) return { state: "foreign", reason: "its metadata is not Sandport's" };
    if (record.owner !== this.#owner) {
      return { state: "foreign", reason: `it belongs to owner ${JSON.stringify(record.owner)}` };
    }
    return { state: "owned", record };
  }

  /** Reads a sandbox that must exist and be ours: `NOT_FOUND` or `FOREIGN_SANDBOX` otherwise. */
  async require(id: string): Promise<SandboxRecord> {
    const found = await this.read(id);
    if (found.state === "owned") return found.record;
    if (found.state === "absent") throw notFound(id);
    throw foreign(id, found.reason);
  }

  /** Every sandbox of this owner under the root, in id order. Foreign and half-built ones are skipped. */
  async list(): Promise<SandboxRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const records: SandboxRecord[] = [];
    for (const name of names.sort()) {
      if (!ID_PATTERN.test(name)) continue;
      const found = await this.read(name);
      if (found.state === "owned") records.push(found.record);
    }
    return records;
  }

  /**
   * Removes the sandbox directory and proves it gone. The directory is first
   * renamed aside (atomically, so a half-removed sandbox is never mistaken for a
   * live or foreign one), then deleted. When the sandbox is already gone,
   * leftovers of an earlier failed removal of the same id are deleted instead.
   */
  async remove(id: string): Promise<void> {
    const prefix = `${STAGING_PREFIX}removing-${id}-`;
    const doomed = join(this.root, `${prefix}${randomBytes(4).toString("hex")}`);
    let targets = [doomed];
    try {
      await rename(this.sandboxDirectory(id), doomed);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      const names = await readdir(this.root).catch(() => [] as string[]);
      targets = names.filter((name) => name.startsWith(prefix)).map((name) => join(this.root, name));
    }
    for (const target of targets) await rm(target, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
    for (const path of [...targets, this.sandboxDirectory(id)]) {
      if (await exists(path)) {
        throw new SandportError({
          code: "DESTROY_UNVERIFIED",
          provider: LOCAL_PROVIDER,
          message: `sandbox ${id} is still on disk after removal (${path})`,
          details: { sandboxId: id },
        });
      }
    }
  }
}

/** `NOT_FOUND` for a sandbox id. */
export function notFound(id: string): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: LOCAL_PROVIDER,
    message: `sandbox ${id} does not exist`,
    details: { sandboxId: id },
  });
}

/** `FOREIGN_SANDBOX` for a sandbox id. */
export function foreign(id: string, reason: string): SandportError {
  return new SandportError({
    code: "FOREIGN_SANDBOX",
    provider: LOCAL_PROVIDER,
    message: `sandbox ${id} is not owned by this runtime: ${reason}`,
    details: { sandboxId: id },
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
