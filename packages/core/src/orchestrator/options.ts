import type { LaunchSpec } from "../port/launch-spec.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { RetryPolicy } from "../timing/retry.js";
import type { OrchestratorListener } from "./events.js";

/** Deadlines, in ms, the orchestrator passes as `OpOptions.timeoutMs` for each kind of call. */
export interface OrchestratorDeadlines {
  /** One `launch` attempt. Default 300 000. */
  readonly launchMs: number;
  /** One `writeFiles` or `readFile`. Default 120 000. */
  readonly fileMs: number;
  /**
   * A step without its own `timeoutMs`. The call's deadline is the step's
   * timeout plus `graceMs`, so the runtime's own kill always comes first. Default 1 800 000.
   */
  readonly stepMs: number;
  /** Added to a step's timeout for the call deadline. Default 30 000. */
  readonly graceMs: number;
  /** One `getById` / `findByLabels`. Default 60 000. */
  readonly lookupMs: number;
  /** One `destroy`. Default 120 000. */
  readonly destroyMs: number;
}

/** Default deadlines. */
export const DEFAULT_DEADLINES: OrchestratorDeadlines = {
  launchMs: 300_000,
  fileMs: 120_000,
  stepMs: 1_800_000,
  graceMs: 30_000,
  lookupMs: 60_000,
  destroyMs: 120_000,
};

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
  /** Per-call deadlines; see {@link OrchestratorDeadlines}. */
  readonly deadlines?: Partial<OrchestratorDeadlines>;
  /**
   * Progress listener. An error it throws is contained: the workload goes on
   * and tears down as if nothing happened, and the error is reported in
   * `WorkloadResult.listenerErrors` / `SandboxSession.listenerErrors` (code
   * `UNEXPECTED`, the thrown value as `cause`).
   */
  readonly onEvent?: OrchestratorListener;
  /**
   * Launch attempts in all when a launch fails retryably and reconciliation
   * proved that nothing was left behind. Default 2.
   */
  readonly launchAttempts?: number;
  /**
   * What to do with a sandbox found after a launch with an unknown outcome:
   * `destroy` it and launch afresh (default), or `adopt` it as the workload's sandbox.
   */
  readonly onUnknownLaunch?: "destroy" | "adopt";
  /**
   * Finds sandboxes a launch with an unknown outcome may have created. Default:
   * `runtime.findByLabels({ "sandport.launch-key": key })`. Without this hook and
   * without `findByLabels`, such a launch is not retried and its error says the
   * sandbox may have leaked.
   */
  readonly reconcileLaunch?: (context: UnknownLaunchContext) => Promise<readonly H[]>;
}
