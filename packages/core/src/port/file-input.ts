import { keyList } from "../validation/known-keys.js";

/** One file to write into a sandbox. */
export interface FileInput {
  /**
   * Path relative to the workspace (or absolute inside it). Parent directories
   * are created. A path that escapes the workspace is refused with `INVALID_REQUEST`.
   */
  readonly path: string;
  /** Content: a string is written as UTF-8, bytes are written exactly. */
  readonly content: string | Uint8Array;
  /**
   * POSIX permission bits from `0` to `0o777` (e.g. `0o755`). Default: `0o644`.
   * Setuid, setgid and sticky bits (`0o7000`) are refused with `INVALID_REQUEST`:
   * not every provider can set them, and a set-id file is never what a workload needs.
   */
  readonly mode?: number;
}

/** Every key a {@link FileInput} may have; any other is refused with `INVALID_REQUEST`. */
export const FILE_INPUT_KEYS = keyList<FileInput>({ path: true, content: true, mode: true });
