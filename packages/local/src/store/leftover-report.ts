/**
 * What kind of thing a leftover is: a half-built sandbox directory, a
 * sandbox's cgroup, a socket file, the marker of a uid taken by a launch
 * that never finished (see `UidPool`), or a process of such a launch: one
 * still running as its uid, or its namespace holder (its path `/proc/<pid>`).
 */
export type LeftoverKind = "staging" | "cgroup" | "socket" | "uid" | "process";

/**
 * One leftover a runtime proved its own and orphaned: nothing that runs now
 * will use or remove it, and no listing shows it.
 */
export interface Leftover {
  readonly kind: LeftoverKind;
  /** Its absolute host path. */
  readonly path: string;
  /** Whether it is gone now. */
  readonly reclaimed: boolean;
  /** Why it could not be removed, when it was not. */
  readonly reason?: string;
}

/** What a runtime's reclaim found and removed. */
export interface LeftoverReport {
  /** Leftovers proven this runtime's own and orphaned. */
  readonly found: number;
  /** Those of them removed. */
  readonly reclaimed: number;
  readonly leftovers: readonly Leftover[];
}

/** Sums a list of leftovers into a report. */
export function leftoverReport(leftovers: readonly Leftover[]): LeftoverReport {
  return { found: leftovers.length, reclaimed: leftovers.filter((leftover) => leftover.reclaimed).length, leftovers };
}

/** The message of a failure, for {@link Leftover.reason}. */
export function failureReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
