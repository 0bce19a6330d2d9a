import { launchReclaimOf } from "../adapter/reclaim-launch.js";
import { toSandportError } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { LAUNCH_KEY_LABEL } from "../port/reserved-labels.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import type { PoolFailure } from "./pool-events.js";
import { POOL_LABEL, type PoolTimeouts } from "./pool-options.js";

/** Codes after which a launch may or may not have created a sandbox. */
const OUTCOME_UNKNOWN = new Set(["DEADLINE_EXCEEDED", "PROVIDER_UNAVAILABLE", "UNEXPECTED", "ABORTED"]);

/**
 * After a pool's launch failed: makes sure it left nothing running, and
 * returns what it could not make sure of (nothing when the launch provably
 * created nothing or what it created is destroyed). A runtime that cleans up
 * after its own failed launches (`launchReclaimOf`) is waited for; otherwise
 * a launch with an unknown outcome is searched for by its launch key and
 * whatever is found is destroyed. Never throws.
 */
export async function settleFailedLaunch(
  runtime: SandboxRuntime,
  launchKey: string,
  error: SandportError,
  timeouts: PoolTimeouts,
): Promise<PoolFailure[]> {
  const reclaim = launchReclaimOf(error);
  if (reclaim) {
    const report = await reclaim;
    if (report.outcome !== "failed") return [];
    return [{ operation: "launch", launchKey, error: report.error ?? error }];
  }
  if (!OUTCOME_UNKNOWN.has(error.code) || error.details.sent === false) return [];
  let found: SandboxHandle[];
  try {
    found = await (runtime.findByLabels as NonNullable<SandboxRuntime["findByLabels"]>).call(
      runtime,
      { [LAUNCH_KEY_LABEL]: launchKey },
      { timeoutMs: timeouts.lookupMs },
    );
  } catch (lookupError) {
    return [{ operation: "launch", launchKey, error: possibleLeak(runtime, launchKey, error, lookupError) }];
  }
  const failures: PoolFailure[] = [];
  for (const handle of found) {
    try {
      await runtime.destroy(handle, { timeoutMs: timeouts.destroyMs });
    } catch (destroyError) {
      failures.push({
        operation: "launch",
        launchKey,
        sandboxId: handle.id,
        error: possibleLeak(runtime, launchKey, error, destroyError),
      });
    }
  }
  return failures;
}

function possibleLeak(runtime: SandboxRuntime, launchKey: string, error: SandportError, cause: unknown): SandportError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SandportError({
    code: error.code,
    provider: runtime.provider,
    retryable: false,
    message: `a pool launch failed with an unknown outcome (${error.message}), and making sure it left nothing failed: ${reason}`,
    cause,
    details: { launchKey, possibleLeak: true },
  });
}

/**
 * Destroys every sandbox carrying `poolId` (what a pool with that id left
 * when its process ended without `close`). Rejects only when the search
 * fails; a destroy that fails is returned as a failure.
 */
export async function reclaimLeftovers(
  runtime: SandboxRuntime,
  poolId: string,
  timeouts: PoolTimeouts,
): Promise<{ readonly reclaimed: string[]; readonly failures: PoolFailure[] }> {
  const findByLabels = runtime.findByLabels as NonNullable<SandboxRuntime["findByLabels"]>;
  const left = await findByLabels.call(runtime, { [POOL_LABEL]: poolId }, { timeoutMs: timeouts.lookupMs });
  const reclaimed: string[] = [];
  const failures: PoolFailure[] = [];
  await Promise.all(
    left.map(async (handle) => {
      try {
        await runtime.destroy(handle, { timeoutMs: timeouts.destroyMs });
        reclaimed.push(handle.id);
      } catch (error) {
        failures.push({ operation: "reclaim", sandboxId: handle.id, error: toSandportError(error, runtime.provider) });
      }
    }),
  );
  return { reclaimed, failures };
}
