import { invalidRequest, unsupported } from "../errors/factories.js";
import type { ExecRequest } from "../port/exec-request.js";
import type { LaunchSpec } from "../port/launch-spec.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { keyList, refuseUnknownShape } from "../validation/known-keys.js";
import { validateLabels } from "../validation/labels.js";
import { validateTimeoutMs } from "../validation/numbers.js";
import { validateExecRequest, validateLaunchSpec } from "../validation/requests.js";
import type { FleetClock } from "./fleet-clock.js";
import { wholeCount } from "./limiter-options.js";
import type { PoolEvent } from "./pool-events.js";
import { type PriceTable, validatePriceTable } from "./usage/price-table.js";

/**
 * The label every sandbox of a pool carries, its value the pool id: how the
 * next pool with that id finds what a process that ended without `close` left.
 */
export const POOL_LABEL = "sandport-pool";

/** Pool ids: a label value safe on every provider (their label syntaxes are narrower than Sandport's). */
const POOL_ID = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;

/** Deadlines a pool passes to the runtime, in ms. */
export interface PoolTimeouts {
  /** Each launch. Default 300 000. */
  readonly launchMs: number;
  /** Each destroy. Default 120 000. */
  readonly destroyMs: number;
  /** Each health check and workspace clean. Default 30 000. */
  readonly execMs: number;
  /** The search for an earlier pool's sandboxes, and for a lost launch's. Default 60 000. */
  readonly lookupMs: number;
}

/** Default {@link PoolTimeouts}. */
export const DEFAULT_POOL_TIMEOUTS: PoolTimeouts = Object.freeze({
  launchMs: 300_000,
  destroyMs: 120_000,
  execMs: 30_000,
  lookupMs: 60_000,
});

/** Options of `SandboxPool.open`. */
export interface SandboxPoolOptions {
  /**
   * The pool's id, stored on every sandbox as the label `sandport-pool`. One
   * live pool per id: opening a pool destroys every sandbox carrying its id,
   * as left by an earlier process. Letters, digits, `.`, `_`, `-`; at most 63.
   */
  readonly poolId: string;
  /** What each sandbox is launched with. Its labels get `sandport-pool`; a `launchKey` is the pool's to set. */
  readonly launch?: LaunchSpec;
  /** Sandboxes kept launched and idle, ready for `lease()`. Default 1. */
  readonly minIdle?: number;
  /** Sandboxes the pool owns at most: idle, leased and launching. Default `max(minIdle, 1)`. */
  readonly max?: number;
  /** An idle sandbox older than this (idle since its launch or last reset) is replaced. Default: never. */
  readonly maxIdleMs?: number;
  /**
   * What `release(lease, { mode: "reset" })` does: `replace` (default)
   * destroys the sandbox and launches a fresh one; `clean-workspace` empties
   * its workspace, checks it is laid out as at launch, runs the health check
   * and keeps it. Cleaning touches only the workspace: see the fleet docs for
   * what it leaves.
   */
  readonly reset?: "replace" | "clean-workspace";
  /** The cheap command that says a sandbox works: it must exit 0. Default `{ argv: ["true"] }`. */
  readonly healthCheck?: ExecRequest;
  /**
   * Run the health check on every idle sandbox before it is leased. Default:
   * only where the runtime does not declare `warmLease` (there an idle sandbox
   * may have been reclaimed or suspended by the provider unseen). The
   * declaration is read, not evidence: pass `false` where a canary observed it.
   */
  readonly checkBeforeLease?: boolean;
  /** Default deadline of `lease()`. Default 300 000. */
  readonly leaseTimeoutMs?: number;
  /** Run `maintain()` this often (an unreferenced timer). Default: only when called. */
  readonly maintainEveryMs?: number;
  /** Deadlines of the runtime calls; see {@link PoolTimeouts}. */
  readonly timeouts?: Partial<PoolTimeouts>;
  /** Hears launches, leases, releases, replacements and failures. */
  readonly onEvent?: (event: PoolEvent) => void;
  /** Time, injectable for tests: idle ages and lease deadlines. Default: the system clock. */
  readonly clock?: FleetClock;
  /**
   * The caller's prices, by provider: each sandbox's `usage` event then
   * carries an estimate (see the orchestrator's option of the same name).
   */
  readonly prices?: PriceTable;
}

/** Every key of {@link SandboxPoolOptions}; any other is refused. */
export const POOL_OPTION_KEYS = keyList<SandboxPoolOptions>({
  poolId: true,
  launch: true,
  minIdle: true,
  max: true,
  maxIdleMs: true,
  reset: true,
  healthCheck: true,
  checkBeforeLease: true,
  leaseTimeoutMs: true,
  maintainEveryMs: true,
  timeouts: true,
  onEvent: true,
  clock: true,
  prices: true,
});

/** The options as the pool applies them. */
export interface ResolvedPoolOptions {
  readonly poolId: string;
  readonly launch: LaunchSpec;
  readonly minIdle: number;
  readonly max: number;
  readonly maxIdleMs: number;
  readonly reset: "replace" | "clean-workspace";
  readonly healthCheck: ExecRequest;
  readonly checkBeforeLease: boolean;
  readonly leaseTimeoutMs: number;
  readonly maintainEveryMs: number | undefined;
  readonly timeouts: PoolTimeouts;
  readonly prices: PriceTable | undefined;
}

/**
 * Checks a pool's options against its runtime, refusing with
 * `INVALID_REQUEST`, or `UNSUPPORTED` for a runtime without `findByLabels`
 * (a pool could not find what a crashed process left, so it would leak it).
 */
export function resolvePoolOptions(runtime: SandboxRuntime, options: unknown): ResolvedPoolOptions {
  refuseUnknownShape(options, POOL_OPTION_KEYS, "SandboxPool options");
  const given = options as SandboxPoolOptions;
  if (typeof runtime.findByLabels !== "function") {
    throw unsupported(
      runtime.provider,
      "sandbox pools",
      "the runtime has no findByLabels (labelSearch), so a pool could not find the sandboxes a crashed process left",
    );
  }
  if (typeof given.poolId !== "string" || !POOL_ID.test(given.poolId)) {
    throw invalidRequest("SandboxPool options.poolId must be 1-63 letters, digits, '.', '_' or '-'", {
      field: "poolId",
    });
  }
  const launch = given.launch ?? {};
  // A malformed spec is refused now, not by every launch the pool would make.
  validateLaunchSpec(launch, runtime.provider);
  if (launch.launchKey !== undefined) {
    throw invalidRequest("SandboxPool options.launch.launchKey is set by the pool for each launch", {
      field: "launch.launchKey",
    });
  }
  const labels = validateLabels(launch.labels, { field: "SandboxPool options.launch.labels" }) ?? {};
  if (POOL_LABEL in labels) {
    throw invalidRequest(`SandboxPool options.launch.labels may not set ${POOL_LABEL}: it is the pool id`, {
      field: "launch.labels",
    });
  }
  const minIdle = wholeCount(given.minIdle, "SandboxPool options.minIdle", 0) ?? 1;
  const max = wholeCount(given.max, "SandboxPool options.max", 1) ?? Math.max(minIdle, 1);
  if (max < minIdle) throw invalidRequest(`SandboxPool options.max (${max}) is below minIdle (${minIdle})`, {});
  if (given.reset !== undefined && given.reset !== "replace" && given.reset !== "clean-workspace") {
    throw invalidRequest('SandboxPool options.reset must be "replace" or "clean-workspace"', { field: "reset" });
  }
  if (given.healthCheck !== undefined) {
    // Checked once here: a malformed check would otherwise fail on every sandbox and replace them all.
    validateExecRequest(given.healthCheck, { root: runtime.workspaceRoot, provider: runtime.provider });
  }
  refuseUnknownShape(given.timeouts ?? {}, Object.keys(DEFAULT_POOL_TIMEOUTS), "SandboxPool options.timeouts");
  const timeouts = { ...DEFAULT_POOL_TIMEOUTS };
  for (const [name, value] of Object.entries(given.timeouts ?? {})) {
    const checked = validateTimeoutMs(value, `SandboxPool options.timeouts.${name}`);
    if (checked !== undefined) (timeouts as Record<string, number>)[name] = checked;
  }
  if (given.checkBeforeLease !== undefined && typeof given.checkBeforeLease !== "boolean") {
    throw invalidRequest("SandboxPool options.checkBeforeLease must be a boolean", { field: "checkBeforeLease" });
  }
  return {
    poolId: given.poolId,
    launch: { ...launch, labels: { ...labels, [POOL_LABEL]: given.poolId } },
    minIdle,
    max,
    maxIdleMs: validateTimeoutMs(given.maxIdleMs, "SandboxPool options.maxIdleMs") ?? Infinity,
    reset: given.reset ?? "replace",
    healthCheck: given.healthCheck ?? { argv: ["true"] },
    checkBeforeLease: given.checkBeforeLease ?? runtime.capabilities.warmLease !== true,
    leaseTimeoutMs: validateTimeoutMs(given.leaseTimeoutMs, "SandboxPool options.leaseTimeoutMs") ?? 300_000,
    maintainEveryMs: validateTimeoutMs(given.maintainEveryMs, "SandboxPool options.maintainEveryMs"),
    timeouts,
    prices: given.prices === undefined ? undefined : validatePriceTable(given.prices, "SandboxPool options.prices"),
  };
}
