import type { CapabilityName } from "../capabilities/capability-names.js";
import type { FailoverPolicy } from "../fleet/failover/failover-policy.js";
import type { PriceTable } from "../fleet/usage/price-table.js";
import type { LaunchSpec } from "../port/launch-spec.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { OperationTimeouts } from "../timing/operation-timeouts.js";
import type { RetryPolicy } from "../timing/retry.js";
import { keyList } from "../validation/known-keys.js";
import type { OrchestratorListener } from "./events.js";

/**
 * Deadlines in ms the orchestrator passes as `OpOptions.timeoutMs`, by kind of
 * call: the runtimes' vocabulary (`OperationTimeouts`, without `lifecycleMs`:
 * the orchestrator never stops or starts a sandbox), plus `stepMs`.
 */
export interface OrchestratorTimeouts extends Omit<OperationTimeouts, "lifecycleMs"> {
  /**
   * The run budget assumed for a step without its own `timeoutMs` (the
   * runtime's own budget then applies to the command): the step call's
   * deadline is this plus `execGraceMs`. Default 1 800 000.
   */
  readonly stepMs: number;
  /**
   * How long a workload waits, before it returns, for the runtime's
   * background cleanup of its failed launches (a create whose outcome was
   * unknown, one the caller gave up on). What has not finished by then is
   * reported as a possible leak (`WorkloadResult.possibleLeaks`). Not waited
   * for after the caller's abort. Default 30 000.
   */
  readonly reclaimMs: number;
}

/**
 * Default orchestrator timeouts: launch 300 s, files 120 s, steps 30 min + 30 s grace, lookups 60 s,
 * destroy 120 s, waiting for the cleanup of failed launches 30 s.
 */
export const DEFAULT_ORCHESTRATOR_TIMEOUTS: OrchestratorTimeouts = Object.freeze({
  launchMs: 300_000,
  fileMs: 120_000,
  stepMs: 1_800_000,
  execGraceMs: 30_000,
  lookupMs: 60_000,
  destroyMs: 120_000,
  reclaimMs: 30_000,
});

/** Every key of {@link OrchestratorTimeouts}; any other in `OrchestratorOptions.timeouts` is refused. */
export const ORCHESTRATOR_TIMEOUT_KEYS = keyList<OrchestratorTimeouts>({
  launchMs: true,
  fileMs: true,
  stepMs: true,
  execGraceMs: true,
  lookupMs: true,
  destroyMs: true,
  reclaimMs: true,
});

/** What a reconciliation hook learns about a launch whose outcome is unknown. */
export interface UnknownLaunchContext {
  /** The key the launch carried (`LaunchSpec.launchKey`). */
  readonly launchKey: string;
  /** The spec as sent. */
  readonly spec: LaunchSpec;
  /** Why the outcome is unknown (deadline, dropped connection, 5xx). */
  readonly error: unknown;
  /** Fires when reconciliation itself must stop. */
  readonly signal: AbortSignal;
}

/** Options for `SandboxOrchestrator`. */
export interface OrchestratorOptions<H extends SandboxHandle = SandboxHandle> {
  /** Retry policy for safe operations (reads, lookups, file writes, destroys). Launches are reconciled, never blindly repeated; steps are never retried. */
  readonly retry?: RetryPolicy;
  /** Per-call deadlines; see {@link OrchestratorTimeouts}. */
  readonly timeouts?: Partial<OrchestratorTimeouts>;
  /**
   * Progress listener. An error it throws is contained: the workload goes on
   * and tears down as if nothing happened, and the error is reported in
   * `WorkloadResult.listenerErrors` / `SandboxSession.listenerErrors` (code
   * `UNEXPECTED`, the thrown value as `cause`).
   */
  readonly onEvent?: OrchestratorListener;
  /**
   * Launch attempts in all when a launch fails retryably and reconciliation
   * proved that nothing was left behind, or the runtime reclaims what it may
   * have left in the background. Default 2.
   */
  readonly launchAttempts?: number;
  /**
   * What to do with a sandbox found after a launch with an unknown outcome:
   * `destroy` it and launch afresh (default), or `adopt` it as the workload's
   * sandbox. Applies to runtimes that do not reclaim such a launch themselves:
   * one that does (every remote adapter) destroys it in the background, and
   * the workload waits for that (`timeouts.reclaimMs`).
   */
  readonly onUnknownLaunch?: "destroy" | "adopt";
  /**
   * Finds sandboxes a launch with an unknown outcome may have created. Default:
   * `runtime.findByLabels({ "sandport.launch-key": key })`. Without this hook and
   * without `findByLabels`, such a launch is not retried and its error says the
   * sandbox may have leaked.
   */
  readonly reconcileLaunch?: (context: UnknownLaunchContext) => Promise<readonly H[]>;
  /**
   * When a launch moves from one of the orchestrator's runtimes to the next
   * (given a list of runtimes; a single runtime never moves). Default: on
   * every one of `PROVIDER_UNAVAILABLE`, `RATE_LIMITED`, `DEADLINE_EXCEEDED`.
   */
  readonly failover?: FailoverPolicy;
  /**
   * The caller's prices, by provider, for an estimate in each sandbox's
   * usage. Never fetched, never assumed: without a table there is no estimate.
   */
  readonly prices?: PriceTable;
}

/** Every key of {@link OrchestratorOptions}; any other is refused by the constructor. */
export const ORCHESTRATOR_OPTION_KEYS = keyList<OrchestratorOptions>({
  retry: true,
  timeouts: true,
  onEvent: true,
  launchAttempts: true,
  onUnknownLaunch: true,
  reconcileLaunch: true,
  failover: true,
  prices: true,
});

/** Options of one `SandboxOrchestrator.run`. */
export interface RunOptions {
  /** Aborting stops the workload (a running step is killed) and tears down by policy. */
  readonly signal?: AbortSignal;
}

/** Every key of {@link RunOptions}. */
export const RUN_OPTION_KEYS = keyList<RunOptions>({ signal: true });

/** Options of one `SandboxOrchestrator.session`. */
export interface SessionOptions {
  /** Aborting stops the acquisition. */
  readonly signal?: AbortSignal;
  /** `always` (default): disposal destroys the sandbox; `keep`: it survives the session. */
  readonly teardown?: "always" | "keep";
  /**
   * Capabilities the session will use beyond what its launch spec shows
   * (`streaming`, `ports`, `fileOps`, ...): a launch that fails over moves
   * only to a runtime that has them.
   */
  readonly requires?: readonly CapabilityName[];
}

/** Every key of {@link SessionOptions}. */
export const SESSION_OPTION_KEYS = keyList<SessionOptions>({ signal: true, teardown: true, requires: true });
