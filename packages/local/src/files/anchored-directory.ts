import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, type Stats } from "node:fs";
import { join } from "node:path";

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** `O_PATH` (Linux): a descriptor that names a file without opening it for reading, so mode 000 is no obstacle. */
const O_PATH = 0o10000000;

let anchorable: boolean | undefined;

/**
 * Whether names can be resolved relative to a held directory (Linux, through
 * `/proc/self/fd`). Node has no `openat`; opening `/proc/self/fd/<fd>/<name>`
 * is its equivalent: the kernel jumps to the directory the descriptor holds,
 * not to whatever its path names now, then looks up one name in it.
 */
export function canAnchor(): boolean {
  anchorable ??= process.platform === "linux" && existsSync("/proc/self/fd");
  return anchorable;
}

/**
 * A directory held open, whose entries are addressed as `<path>/<name>` with
 * `path` = `/proc/self/fd/<fd>`. A name is one path component, so nothing a
 * concurrent process does (renaming a parent, swapping a directory for a
 * symlink) can make an operation through it resolve anywhere but in this very
 * directory. Every child directory is opened with `O_NOFOLLOW`, so a walk from
 * a held root never leaves it through a symlink.
 *
 * Where `/proc/self/fd` does not exist (not Linux) the directory is addressed
 * by its host path instead, and each child is checked with `lstat` before use:
 * the same refusals, but a check that a racing process could outrun.
 */
export class AnchoredDirectory {
  /** Prefix for entry paths: `/proc/self/fd/<fd>`, or the host path where there is no `/proc`. */
  readonly path: string;
  readonly #descriptor: number | undefined;
  /** Holders that have not closed it yet (see {@link share}). */
  #holders = 1;
  #onClosed: (() => void) | undefined;

  private constructor(path: string, descriptor: number | undefined) {
    this.path = path;
    this.#descriptor = descriptor;
  }

  /**
   * Opens a directory by host path (a path whose parents the sandbox cannot
   * change, such as a workspace root). A final symlink is refused (`ENOTDIR`).
   */
  static open(hostPath: string): AnchoredDirectory {
    if (!canAnchor()) return AnchoredDirectory.#checked(hostPath);
    const descriptor = openSync(hostPath, DIRECTORY_FLAGS);
    return new AnchoredDirectory(`/proc/self/fd/${descriptor}`, descriptor);
  }

  /** The path of entry `name` (one component, never `.` or `..`). */
  entry(name: string): string {
    return `${this.path}/${name}`;
  }

  /**
   * Opens child directory `name` without following a symlink. Fails like
   * `open(2)`: `ENOENT` when absent, `ENOTDIR` when it is a symlink or not a
   * directory, `EACCES` when unreadable.
   */
  openChild(name: string): AnchoredDirectory {
    if (this.#descriptor === undefined) return AnchoredDirectory.#checked(join(this.path, name));
    const descriptor = openSync(this.entry(name), DIRECTORY_FLAGS);
    return new AnchoredDirectory(`/proc/self/fd/${descriptor}`, descriptor);
  }

  /** `fstat` of the held directory (its device tells a mount point apart). */
  stat(): Stats {
    return this.#descriptor === undefined ? lstatSync(this.path) : fstatSync(this.#descriptor);
  }

  /**
   * Adds a holder, so that concurrent operations on the same directory share
   * one descriptor; each holder calls {@link close} once. Returns `false` when
   * the descriptor is already closed (open the directory afresh then).
   */
  share(): boolean {
    if (this.#holders === 0) return false;
    this.#holders++;
    return true;
  }

  /** Calls `listener` once the last holder has closed the descriptor. */
  onClosed(listener: () => void): void {
    this.#onClosed = listener;
  }

  /** Releases one holder; the last one closes the descriptor. Extra calls do nothing. */
  close(): void {
    if (this.#holders === 0) return;
    if (--this.#holders > 0) return;
    if (this.#descriptor !== undefined) closeSync(this.#descriptor);
    this.#onClosed?.();
  }

  static #checked(path: string): AnchoredDirectory {
    const stats = lstatSync(path);
    if (!stats.isDirectory())
      throw Object.assign(new Error(`ENOTDIR: not a directory, '${path}'`), { code: "ENOTDIR" });
    return new AnchoredDirectory(path, undefined);
  }
}

/**
 * Runs `task` with a descriptor that names `path` without opening it
 * (`O_PATH | O_NOFOLLOW`), addressed as `/proc/self/fd/<fd>`: how to `chmod`
 * a directory whose mode is 000 without following a symlink swapped in its
 * place. Where there is no `/proc`, `task` gets the path itself.
 */
export function withPathDescriptor<T>(path: string, task: (stats: Stats, handlePath: string) => T): T {
  if (!canAnchor()) return task(lstatSync(path), path);
  const descriptor = openSync(path, O_PATH | constants.O_NOFOLLOW);
  try {
    return task(fstatSync(descriptor), `/proc/self/fd/${descriptor}`);
  } finally {
    closeSync(descriptor);
  }
}
