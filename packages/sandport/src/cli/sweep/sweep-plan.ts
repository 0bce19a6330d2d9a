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
  return handles.map((handle) => {
    const created = handle.createdAt === undefined ? Number.NaN : Date.parse(handle.createdAt);
    if (Number.isNaN(created)) return { handle, ageMs: undefined, action: "keep-age-unknown" };
    const ageMs = Math.max(0, now - created);
    return { handle, ageMs, action: ageMs >= olderThanMs ? "destroy" : "keep-young" };
  });
}
