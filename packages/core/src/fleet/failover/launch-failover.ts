import type { CapabilityName } from "../../capabilities/capability-names.js";
import { resolveCapabilities } from "../../capabilities/resolve-capabilities.js";
import { toSandportError } from "../../errors/factories.js";
import { type AcquireContext, type Acquired, acquireSandbox, launchRemains } from "../../orchestrator/acquire.js";
import { settleReclaims } from "../../orchestrator/launch-reclaims.js";
import { type AcquireSpec, isReuseSpec } from "../../orchestrator/workload.js";
import type { SandboxHandle } from "../../port/sandbox-handle.js";
import type { SandboxRuntime } from "../../port/sandbox-runtime.js";
import { type CapabilityNeed, unmetNeeds } from "./capability-needs.js";
import type { FailoverCode } from "./failover-policy.js";
import type { RuntimeRef } from "./runtime-ref.js";

/** A runtime a launch may be placed on, and whether it may move there. */
export interface Placement<H extends SandboxHandle> {
  readonly runtime: SandboxRuntime<H>;
  readonly ref: RuntimeRef;
}

/** What acquisition shares across the runtimes it tries: everything but the runtime itself. */
export type SharedAcquireContext<H extends SandboxHandle> = Omit<
  AcquireContext<H>,
  "runtime" | "provider" | "placement" | "moveOn"
>;

/** How {@link acquireWithFailover} chooses and moves. */
export interface FailoverPlan<H extends SandboxHandle> {
  /** The orchestrator's runtimes, in order; the first is always tried. */
  readonly placements: readonly Placement<H>[];
  /** The codes a launch moves on (`FailoverPolicy.on`). */
  readonly codes: ReadonlySet<string>;
  /** Capabilities the caller says it will use besides what the spec shows (`SessionOptions.requires`). */
  readonly requires: readonly CapabilityName[];
  /**
   * Why the workload cannot run on `runtime` other than a capability (a file
   * path outside its workspace root), or `undefined` when it can.
   */
  readonly refuses?: (runtime: SandboxRuntime<H>) => string | undefined;
}

/** A sandbox acquired, and where. */
export interface PlacedSandbox<H extends SandboxHandle> extends Acquired<H> {
  readonly placement: Placement<H>;
}

/**
 * Acquires a sandbox on the first runtime, moving a launch to the next one
 * that can run it when it fails with one of the plan's codes before a
 * sandbox exists:
 *
 * - the first runtime is always tried (the caller chose it; its own launch
 *   refuses what it cannot do, as with a single runtime); a later one only
 *   when it has every capability the launch uses (`unmetNeeds` of its
 *   `resolveCapabilities`) and nothing else refuses it, else it is passed
 *   over with a `runtime-skipped` event saying what it lacks;
 * - a failure moves only when its launch provably left nothing: refused,
 *   never sent, or reconciled on its runtime (the orchestrator's search, or
 *   the runtime's background cleanup, waited for up to `timeouts.reclaimMs`
 *   and reported as `launch-reconciled`); a launch that may have left a
 *   sandbox, or adopted one, never moves;
 * - a reuse never moves (the sandbox is where it is), nor does anything
 *   after the caller's abort.
 *
 * Each move is a `failover` event naming both runtimes and the error. When
 * no runtime is left, the last failure is thrown.
 */
export async function acquireWithFailover<H extends SandboxHandle>(
  shared: SharedAcquireContext<H>,
  plan: FailoverPlan<H>,
  spec: AcquireSpec,
  signal: AbortSignal | undefined,
): Promise<PlacedSandbox<H>> {
  const [first, ...rest] = plan.placements;
  if (!first) throw new Error("an orchestrator has at least one runtime");
  const movable = isReuseSpec(spec) ? [] : rest;
  const skips = new Map<number, { readonly reason: string; readonly missing: readonly CapabilityNeed[] }>();
  for (const placement of movable) {
    const skip = unfit(placement.runtime, plan, spec as Exclude<AcquireSpec, { reuse: unknown }>);
    if (skip) skips.set(placement.ref.index, skip);
  }
  const targets = [first, ...movable.filter((placement) => !skips.has(placement.ref.index))];

  for (const [position, placement] of targets.entries()) {
    const next = targets[position + 1];
    const context: AcquireContext<H> = {
      ...shared,
      runtime: placement.runtime,
      provider: placement.runtime.provider,
      placement: placement.ref,
      ...(next ? { moveOn: plan.codes } : {}),
    };
    try {
      return { ...(await acquireSandbox(context, spec, signal)), placement };
    } catch (raw) {
      const error = toSandportError(raw, placement.runtime.provider);
      if (!plan.codes.has(error.code) || signal?.aborted) throw raw;
      // Say why the runtimes between this one and the next (or the end) are not tried.
      const until = next?.ref.index ?? Number.POSITIVE_INFINITY;
      for (const skipped of movable) {
        const skip = skips.get(skipped.ref.index);
        if (skip && skipped.ref.index > placement.ref.index && skipped.ref.index < until) {
          shared.emit({ type: "runtime-skipped", runtime: skipped.ref, ...skip });
        }
      }
      if (!next || !(await leftNothing(shared, raw))) throw raw;
      shared.emit({ type: "failover", from: placement.ref, to: next.ref, code: error.code as FailoverCode, error });
    }
  }
  throw new Error("unreachable: the last runtime's failure is thrown");
}

/** Why a launch of `spec` may not move to `runtime`, or undefined when it may. */
function unfit<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  plan: FailoverPlan<H>,
  spec: Exclude<AcquireSpec, { reuse: unknown }>,
): { readonly reason: string; readonly missing: readonly CapabilityNeed[] } | undefined {
  const missing = unmetNeeds(resolveCapabilities(runtime), spec, plan.requires);
  if (missing.length > 0) {
    const named = missing.map((need) => `${need.capability} (for ${need.because})`).join(", ");
    return { reason: `lacks ${named}`, missing };
  }
  const refused = plan.refuses?.(runtime);
  return refused === undefined ? undefined : { reason: refused, missing: [] };
}

/**
 * Whether the failed launch that threw `error` provably left nothing: said so
 * by acquisition, or its runtime's background cleanup ended cleanly within
 * `timeouts.reclaimMs` (reported as `launch-reconciled`, and no longer waited
 * for at the end). A cleanup that failed or is unfinished stays pending, to
 * be reported as a possible leak.
 */
async function leftNothing<H extends SandboxHandle>(shared: SharedAcquireContext<H>, error: unknown): Promise<boolean> {
  const remains = launchRemains(error);
  if (!remains) return false;
  if (remains.kind === "nothing") return true;
  const leaks = await settleReclaims([remains.reclaim], shared.timeouts.reclaimMs, (report) =>
    shared.emit({
      type: "launch-reconciled",
      launchKey: report.launchKey,
      adopted: undefined,
      destroyed: report.destroyed,
    }),
  );
  if (leaks.length > 0) return false;
  const at = shared.reclaims.indexOf(remains.reclaim);
  if (at >= 0) shared.reclaims.splice(at, 1);
  return true;
}
