import type { SandboxHandle } from "@sandport/core";

/** What a sweep does with one owned sandbox. */
export type SweepAction = "destroy" | "keep-young" | "keep-age-unknown";

/** One owned sandbox and what the sweep does with it. */
export interface SweepItem {
  readonly handle: SandboxHandle;
  /** Milliseconds since creation, when the provider reports a creation time. */
  readonly ageMs: number | undefined;
  readonly action: SweepAction;
}

/**
 * Decides, for sandboxes the runtime listed as ours, which are past
 * `olderThanMs`. One without a creation time is kept: its age cannot be shown.
 */
export function planSweep(handles: readonly SandboxHandle[], olderThanMs: number, now: number): SweepItem[] {
  return handles.map((handle) => ({ handle, ...judgeAge(handle.createdAt, olderThanMs, now) }));
}

/**
 * The age of something created at `createdAt` (ISO 8601) and whether a sweep
 * removes it: at or past `olderThanMs`; a missing or garbled time keeps it.
 */
export function judgeAge(
  createdAt: string | undefined,
  olderThanMs: number,
  now: number,
): { readonly ageMs: number | undefined; readonly action: SweepAction } {
  const created = createdAt === undefined ? Number.NaN : Date.parse(createdAt);
  if (Number.isNaN(created)) return { ageMs: undefined, action: "keep-age-unknown" };
  const ageMs = Math.max(0, now - created);
  return { ageMs, action: ageMs >= olderThanMs ? "destroy" : "keep-young" };
}
