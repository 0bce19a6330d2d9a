import { chownSync, lstatSync, mkdirSync, readlinkSync, type Stats } from "node:fs";
import { AnchoredDirectory } from "./anchored-directory.js";
import { errorCode, fileError, refusePath, workspaceGone } from "./file-errors.js";

/** The host user that owns what the runtime creates in a workspace (set when commands run as another user). */
export interface FileOwner {
  readonly uid: number;
  readonly gid: number;
}

/** Where a walk stopped: the deepest directory reached (held open: close it) and the names below it that do not exist. */
export interface WalkResult {
  readonly directory: AnchoredDirectory;
  /** Names of `segments` from the first missing one on; empty when the whole path exists. */
  readonly missing: readonly string[];
}

/** How many symlinks one walk may follow before the path is refused (as the kernel's `ELOOP`). */
const MAX_LINKS = 40;
/** How many times one walk looks again at a component that changed under it before refusing. */
const MAX_RETRIES = 100;

/**
 * Resolves workspace paths one component at a time from the held workspace
 * root (see `AnchoredDirectory`), so that no lookup can leave the workspace,
 * whatever runs in the sandbox meanwhile.
 *
 * A symlink among the directories is followed only when its target stays in
 * the workspace, judged by the target's text: a relative target against the
 * link's own directory, an absolute one only under `linkRoot` (how commands
 * name the workspace: `/workspace` when isolated, the host directory
 * otherwise). The walk then restarts from the root with the target's
 * components, so following never trusts a path the sandbox could change.
 */
export class WorkspaceWalker {
  readonly #rootPath: string;
  readonly #linkRoot: string;
  readonly #owner: FileOwner | undefined;
  /**
   * Directories reached by walks still in progress elsewhere, by the path
   * asked for: concurrent operations under one directory (200 reads of
   * `dir/file-<n>`) share its descriptor instead of walking to it 200 times.
   * An entry lives only while some operation holds it.
   */
  readonly #held = new Map<string, AnchoredDirectory>();

  /**
   * @param rootPath host path of the workspace (its parents are the runtime's, not the sandbox's)
   * @param linkRoot the workspace's absolute path as commands see it, for absolute symlink targets
   * @param owner who directories the walk creates belong to (absent: the runtime's own user)
   */
  constructor(rootPath: string, linkRoot: string, owner?: FileOwner) {
    this.#rootPath = rootPath;
    this.#linkRoot = linkRoot.replace(/\/+$/, "");
    this.#owner = owner;
  }

  /** Opens the workspace root. `NOT_FOUND` when the workspace is gone. */
  openRoot(): AnchoredDirectory {
    try {
      return AnchoredDirectory.open(this.#rootPath);
    } catch (error) {
      if (errorCode(error) === "ENOENT") throw workspaceGone();
      throw error;
    }
  }

  /**
   * Walks `segments` as directories. Missing ones are created when `create`
   * is set (owned by the configured owner), else reported in `missing`.
   * Refuses (`INVALID_REQUEST`, naming `requested`) a symlink leading out of
   * the workspace and a component that is not a directory.
   */
  walk(segments: readonly string[], requested: string, create = false): WalkResult {
    const key = segments.join("/");
    const held = this.#held.get(key);
    if (held?.share()) return { directory: held, missing: [] };
    const walked = this.#walk(segments, requested, create);
    if (walked.missing.length === 0 && !this.#held.has(key)) {
      const directory = walked.directory;
      this.#held.set(key, directory);
      directory.onClosed(() => {
        if (this.#held.get(key) === directory) this.#held.delete(key);
      });
    }
    return walked;
  }

  #walk(segments: readonly string[], requested: string, create: boolean): WalkResult {
    let pending = [...segments];
    let reached: string[] = [];
    let links = 0;
    let retries = 0;
    let current = this.#startAtRoot();
    try {
      while (pending.length > 0) {
        const name = pending[0] as string;
        let next: AnchoredDirectory;
        try {
          next = current.openChild(name);
        } catch (error) {
          const code = errorCode(error);
          if (code === "ENOENT") {
            if (!create) return { directory: current, missing: pending };
            this.#makeDirectory(current, name, requested);
            continue;
          }
          if (code !== "ENOTDIR") throw fileError(error, requested);
          const found = lookAtEntry(current, name);
          // It changed between the open and the look (a process in the sandbox swapping it): look again.
          if (found.kind === "changed") {
            if (++retries > MAX_RETRIES) throw refusePath(requested, "keeps changing while it is resolved");
            continue;
          }
          if (found.kind === "other") throw refusePath(requested, "has a parent that is not a directory");
          const target = found.target;
          const linkPath = [...reached, name].join("/");
          if (++links > MAX_LINKS) throw refusePath(requested, "passes through too many symlinks");
          const resolved = this.#resolveTarget(reached, target);
          if (resolved === undefined) {
            throw refusePath(requested, `passes through symlink ${linkPath}, which leads outside the workspace`);
          }
          pending = [...resolved, ...pending.slice(1)];
          reached = [];
          current.close();
          current = this.#startAtRoot();
          continue;
        }
        current.close();
        current = next;
        reached.push(name);
        pending = pending.slice(1);
      }
      return { directory: current, missing: [] };
    } catch (error) {
      current.close();
      throw error;
    }
  }

  /** The root, shared with a walk in progress when there is one. */
  #startAtRoot(): AnchoredDirectory {
    const root = this.#held.get("");
    return root?.share() ? root : this.openRoot();
  }

  /**
   * Creates each of `names` below `directory`, one level at a time, and
   * returns the deepest (held open; `directory` itself is left open).
   */
  createBelow(directory: AnchoredDirectory, names: readonly string[], requested: string): AnchoredDirectory {
    let current = directory;
    for (const name of names) {
      let next: AnchoredDirectory | undefined;
      while (!next) {
        try {
          next = current.openChild(name);
        } catch (error) {
          if (errorCode(error) !== "ENOENT") {
            if (current !== directory) current.close();
            throw errorCode(error) === "ENOTDIR"
              ? refusePath(requested, "has a parent that is not a directory")
              : error;
          }
          this.#makeDirectory(current, name, requested);
        }
      }
      if (current !== directory) current.close();
      current = next;
    }
    return current;
  }

  #makeDirectory(parent: AnchoredDirectory, name: string, requested: string): void {
    try {
      mkdirSync(parent.entry(name), 0o755);
    } catch (error) {
      if (errorCode(error) === "EEXIST") return;
      throw fileError(error, requested);
    }
    // A directory the runtime creates belongs to whoever the commands run as.
    if (this.#owner) {
      const created = parent.openChild(name);
      try {
        chownSync(created.path, this.#owner.uid, this.#owner.gid);
      } finally {
        created.close();
      }
    }
  }

  /** A symlink target as workspace components, or `undefined` when it leads outside. */
  #resolveTarget(linkDirectory: readonly string[], target: string): string[] | undefined {
    let base: string[];
    let rest: string;
    if (target.startsWith("/")) {
      if (target !== this.#linkRoot && !target.startsWith(`${this.#linkRoot}/`)) return undefined;
      base = [];
      rest = target.slice(this.#linkRoot.length);
    } else {
      base = [...linkDirectory];
      rest = target;
    }
    for (const part of rest.split("/")) {
      if (part === "" || part === ".") continue;
      if (part === "..") {
        if (base.length === 0) return undefined;
        base.pop();
      } else {
        base.push(part);
      }
    }
    return base;
  }
}

/** What an entry that could not be opened as a directory turned out to be. */
export type EntryLook =
  | { readonly kind: "link"; readonly target: string }
  /** A file or anything else that is neither a directory nor a symlink. */
  | { readonly kind: "other" }
  /** Now a directory, gone, or no longer a symlink by the time it was read: something swapped it meanwhile. */
  | { readonly kind: "changed" };

/** Looks at entry `name` of `parent` after opening it as a directory failed with `ENOTDIR`. */
export function lookAtEntry(parent: AnchoredDirectory, name: string): EntryLook {
  const path = parent.entry(name);
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "changed" };
    throw error;
  }
  if (stats.isDirectory()) return { kind: "changed" };
  if (!stats.isSymbolicLink()) return { kind: "other" };
  try {
    return { kind: "link", target: readlinkSync(path) };
  } catch (error) {
    if (errorCode(error) === "EINVAL" || errorCode(error) === "ENOENT") return { kind: "changed" };
    throw error;
  }
}
