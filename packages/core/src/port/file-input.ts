/** One file to write into a sandbox. */
export interface FileInput {
  /**
   * Path relative to the workspace (or absolute inside it). Parent directories
   * are created. A path that escapes the workspace is refused with `INVALID_REQUEST`.
   */
  readonly path: string;
  /** Content: a string is written as UTF-8, bytes are written exactly. */
  readonly content: string | Uint8Array;
  /** POSIX permission bits (e.g. `0o755`). Default: `0o644`. */
  readonly mode?: number;
}
