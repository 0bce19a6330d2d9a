import type { SandboxRuntime } from "@sandport/core";

/** One leftover a runtime reclaimed, or found its own and could not remove (the local runtime's report). */
export interface SweptLeftover {
  readonly kind: string;
  readonly path: string;
  readonly reclaimed: boolean;
  readonly reason?: string;
}

/** What a runtime's reclaim found and removed. */
export interface LeftoverSweep {
  readonly found: number;
  readonly reclaimed: number;
  readonly leftovers: readonly SweptLeftover[];
}

/** A runtime that reclaims leftovers no listing shows (the local runtime: staging directories, cgroups, sockets, uid markers). */
interface LeftoverReclaimer {
  reclaimLeftovers(options?: { signal?: AbortSignal }): Promise<LeftoverSweep>;
}

/**
 * The report of `runtime`'s reclaim of leftovers no listing shows, where it
 * has one (`reclaimLeftovers`, the local runtime's); `undefined` elsewhere.
 * The runtime runs its reclaim once, at its first listing, so a sweep's
 * listing has run it already: this reads what it did.
 */
export async function sweepLeftovers(runtime: SandboxRuntime, signal: AbortSignal): Promise<LeftoverSweep | undefined> {
  const reclaimer = runtime as Partial<LeftoverReclaimer>;
  if (typeof reclaimer.reclaimLeftovers !== "function") return undefined;
  return reclaimer.reclaimLeftovers({ signal });
}

/** A leftover's outcome as the sweep prints it. */
export function leftoverOutcome(leftover: SweptLeftover): string {
  return leftover.reclaimed ? "reclaimed" : `left: ${leftover.reason ?? "could not be removed"}`;
}
