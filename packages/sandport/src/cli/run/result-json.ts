import type { SandboxUsage, WorkloadResult } from "@sandport/core";

/** What `sandport run --json` prints of a workload: its one command's outcome, what was collected, the teardown. */
export interface RunResultJson {
  readonly sandboxId: string | undefined;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  readonly durationMs: number | undefined;
  readonly stdout: string | undefined;
  readonly stderr: string | undefined;
  readonly collected: string[];
  readonly teardown: string;
  /** What the sandbox was used for (its life, commands, bytes, an estimate from `--prices`); `null` when none was launched. */
  readonly usage: SandboxUsage | null;
  /** Launch keys of sandboxes that may have leaked (a failed launch whose cleanup did not finish); absent when none. */
  readonly possibleLeaks?: string[];
}

/** The JSON form of a workload's result, whole or (attached to a `WorkloadError`) as far as it got. */
export function runResultJson(result: WorkloadResult): RunResultJson {
  const step = result.steps[0]?.result;
  return {
    sandboxId: result.sandboxId,
    exitCode: step?.exitCode ?? null,
    timedOut: step?.timedOut ?? false,
    truncated: step?.truncated ?? false,
    durationMs: step?.durationMs,
    stdout: step?.stdout,
    stderr: step?.stderr,
    collected: Object.keys(result.collected),
    teardown: result.teardown.outcome,
    usage: result.usage ?? null,
    ...(result.possibleLeaks.length === 0 ? {} : { possibleLeaks: result.possibleLeaks.map((leak) => leak.launchKey) }),
  };
}
