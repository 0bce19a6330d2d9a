/** Kind of a filesystem entry. */
export type FileKind = "file" | "directory" | "symlink" | "other";

/** What `stat` and `listDir` report about one entry. */
export interface FileInfo {
  /** Base name of the entry. */
  readonly name: string;
  /** Workspace-relative path of the entry, with `/` separators. */
  readonly path: string;
  /** What the entry is. A symlink is reported as itself, never followed. */
  readonly kind: FileKind;
  /** Size in bytes (for directories, whatever the provider reports). */
  readonly size: number;
  /** POSIX permission bits, where the provider reports them. */
  readonly mode?: number;
  /** Last modification time as ISO-8601, where the provider reports it. */
  readonly modifiedAt?: string;
}
