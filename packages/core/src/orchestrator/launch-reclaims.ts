import type { LaunchReclaimReport } from "../adapter/reclaim-launch.js";
import { SandportError } from "../errors/sandport-error.js";
import type { PossibleLeak } from "./workload-result.js";

/** A failed launch whose cleanup the runtime runs in the background. */
export interface PendingReclaim {
  readonly launchKey: string;
  readonly provider: string;
  readonly report: Promise<LaunchReclaimReport>;
}

/**
 * Waits, at most `waitMs` in all, for the background cleanup of a workload's
 * failed launches, and returns each that failed or had not finished as a
 * possible leak; `onReconciled` hears each that finished cleanly. Never throws.
 */
export async function settleReclaims(
  pending: readonly PendingReclaim[],
  waitMs: number,
  onReconciled: (report: LaunchReclaimReport) => void,
): Promise<PossibleLeak[]> {
  if (pending.length === 0) return [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, waitMs));
  });
  try {
    const reports = await Promise.all(pending.map((reclaim) => Promise.race([reclaim.report, expired])));
    const leaks: PossibleLeak[] = [];
    for (const [index, report] of reports.entries()) {
      const reclaim = pending[index] as PendingReclaim;
      if (report === undefined) leaks.push({ launchKey: reclaim.launchKey, error: unfinished(reclaim, waitMs) });
      else if (report.outcome === "failed" && report.error) {
        leaks.push({ launchKey: reclaim.launchKey, error: report.error });
      } else onReconciled(report);
    }
    return leaks;
  } finally {
    clearTimeout(timer);
  }
}

function unfinished(reclaim: PendingReclaim, waitMs: number): SandportError {
  return new SandportError({
    code: "DEADLINE_EXCEEDED",
    provider: reclaim.provider,
    retryable: false,
    message:
      `the background cleanup of launch key ${reclaim.launchKey} had not finished ${waitMs} ms after the workload ` +
      "ended: a sandbox may have leaked (runtime.settle() reports how the cleanup ends)",
    details: { launchKey: reclaim.launchKey, possibleLeak: true },
  });
}
