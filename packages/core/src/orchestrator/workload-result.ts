import type { SandportError } from "../errors/sandport-error.js";
import type { RuntimeRef } from "../fleet/failover/runtime-ref.js";
import type { SandboxUsage } from "../fleet/usage/sandbox-usage.js";
import type { ExecResult } from "../port/exec-result.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { TeardownPolicy } from "./workload.js";

/** One step as it ran. */
export interface StepRecord {
  /** Position in `Workload.steps`. */
  readonly index: number;
  /** The step's name. */
  readonly name: string;
  /** When the step started, ISO-8601. */
  readonly startedAt: string;
  /** Wall-clock milliseconds, measured by the orchestrator. */
  readonly durationMs: number;
  /** What the runtime returned. */
  readonly result: ExecResult;
}

/** What teardown did. A failure is reported here and never hidden. */
export interface TeardownReport {
  /** The policy that applied. */
  readonly policy: TeardownPolicy;
  /** `destroyed` (verified), `kept` (by policy), `failed` (see `error`), or `none` (no sandbox was acquired). */
  readonly outcome: "destroyed" | "kept" | "failed" | "none";
  /** Why teardown failed; the sandbox may still exist. */
  readonly error?: SandportError;
  /** Milliseconds spent tearing down. */
  readonly durationMs: number;
}

/**
 * A sandbox a failed launch of the workload may have left running: the
 * runtime's background cleanup of that launch failed, or had not finished
 * when the workload returned (`runtime.settle()` reports how it ends).
 */
export interface PossibleLeak {
  /** The launch key the sandbox would carry (`sandport.launch-key` label): search and destroy by it. */
  readonly launchKey: string;
  /** Why it may have leaked (`details.possibleLeak` is true, `details.launchKey` the key). */
  readonly error: SandportError;
}

/** Milliseconds spent in each phase of a workload. */
export interface WorkloadTimings {
  readonly launchMs: number;
  readonly filesMs: number;
  readonly stepsMs: number;
  readonly collectMs: number;
  readonly teardownMs: number;
  readonly totalMs: number;
}

/** The outcome of `SandboxOrchestrator.run`. Also attached, partially filled, to a `WorkloadError`. */
export interface WorkloadResult<H extends SandboxHandle = SandboxHandle> {
  /** The run's id, which every event of the run carries (`OrchestratorEvent.runId`). */
  readonly runId: string;
  /** True when every step ran and exited 0 and nothing failed. */
  readonly ok: boolean;
  /** The sandbox used, when one was acquired. */
  readonly sandboxId: string | undefined;
  /** True when the sandbox was reused rather than launched. */
  readonly reused: boolean;
  /**
   * The runtime that launched (or reused) the sandbox and ran everything in
   * it: the first of the orchestrator's runtimes unless the launch failed over.
   * `undefined` when no sandbox was acquired.
   */
  readonly runtime: RuntimeRef | undefined;
  /** What the sandbox was used for (also the `usage` event); `undefined` when none was acquired. */
  readonly usage: SandboxUsage | undefined;
  /** The handle, when the sandbox was kept (policy `keep`, or `on-success` after a failure). */
  readonly handle: H | undefined;
  /** Steps that ran, in order. */
  readonly steps: readonly StepRecord[];
  /** Collected files by the path as given in `Workload.collect`. */
  readonly collected: Readonly<Record<string, Uint8Array>>;
  /** Per-phase timings. */
  readonly timings: WorkloadTimings;
  /** What teardown did. */
  readonly teardown: TeardownReport;
  /**
   * Sandboxes failed launches of this workload may have left running (empty
   * when every failed launch was cleaned up before the workload returned).
   * Also said by `WorkloadError.details.possibleLeak`.
   */
  readonly possibleLeaks: readonly PossibleLeak[];
  /**
   * Errors the `onEvent` listener threw, in order, each as `UNEXPECTED` with
   * the thrown value as `cause` and the event's `type` in `details.event`.
   * They never interrupt the workload; empty when the listener behaved.
   */
  readonly listenerErrors: readonly SandportError[];
}
