import type { SandportError } from "../errors/sandport-error.js";
import type { CapabilityNeed } from "../fleet/failover/capability-needs.js";
import type { FailoverCode } from "../fleet/failover/failover-policy.js";
import type { RuntimeRef } from "../fleet/failover/runtime-ref.js";
import type { SandboxUsage } from "../fleet/usage/sandbox-usage.js";
import type { ExecResult } from "../port/exec-result.js";

/**
 * Progress of a workload or session, for UIs and logs. Events arrive in order.
 * Every event carries the `runId` of the `run()` or `session()` it belongs to
 * (`WorkloadResult.runId`, `SandboxSession.runId`), so one listener shared by
 * concurrent runs can tell them apart, the events before any sandbox exists
 * (`failover`, `runtime-skipped`, `retry`, `launch-reconciled`,
 * `acquire-failed`) included. A listener that throws derails nothing: its
 * errors are collected and reported (`WorkloadResult.listenerErrors`), never
 * thrown into the workload.
 */
export type OrchestratorEvent = OrchestratorEventBody & {
  /** The run (one `run()` call) or session (one `session()` call) the event belongs to. */
  readonly runId: string;
};

/** An {@link OrchestratorEvent} before the orchestrator stamps its run id on it. */
export type OrchestratorEventBody =
  | {
      /** The sandbox was acquired, on `runtime`: every later call of the workload or session goes there. */
      readonly type: "launched";
      readonly sandboxId: string;
      readonly reused: boolean;
      readonly durationMs: number;
      readonly runtime: RuntimeRef;
    }
  | {
      /**
       * A launch failed on `from` with `code` before any sandbox existed (refused, never sent, or
       * reconciled there with nothing kept), and moves to `to`.
       */
      readonly type: "failover";
      readonly from: RuntimeRef;
      readonly to: RuntimeRef;
      readonly code: FailoverCode;
      readonly error: SandportError;
    }
  | {
      /** A launch could have moved to `runtime` but did not: it lacks what the workload uses (`missing`), or `reason`. */
      readonly type: "runtime-skipped";
      readonly runtime: RuntimeRef;
      readonly reason: string;
      readonly missing: readonly CapabilityNeed[];
    }
  | {
      /**
       * A launch's outcome was unknown; sandboxes it may have created were adopted or destroyed (by the
       * orchestrator, or by the runtime's background cleanup, which the workload waited for).
       */
      readonly type: "launch-reconciled";
      readonly launchKey: string;
      readonly adopted: string | undefined;
      readonly destroyed: readonly string[];
    }
  | {
      readonly type: "files-written";
      readonly sandboxId: string;
      readonly paths: readonly string[];
      readonly bytes: number;
      readonly durationMs: number;
    }
  | { readonly type: "step-started"; readonly sandboxId: string; readonly index: number; readonly name: string }
  | {
      readonly type: "step-output";
      readonly sandboxId: string;
      readonly index: number;
      readonly stream: "stdout" | "stderr";
      readonly data: string;
    }
  | {
      readonly type: "step-exited";
      readonly sandboxId: string;
      readonly index: number;
      readonly name: string;
      readonly result: ExecResult;
    }
  | { readonly type: "collected"; readonly sandboxId: string; readonly path: string; readonly bytes: number }
  | {
      /** A safe operation failed with a retryable error and will be tried again. */
      readonly type: "retry";
      readonly operation: string;
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: unknown;
    }
  | {
      /**
       * No sandbox was acquired: the launch failed on every runtime it could
       * try (or the reuse found none), with `error`. The last event of a run
       * that never had a sandbox; a session that never opened ends with it too.
       */
      readonly type: "acquire-failed";
      readonly error: SandportError;
    }
  | { readonly type: "destroyed"; readonly sandboxId: string; readonly durationMs: number }
  | { readonly type: "kept"; readonly sandboxId: string }
  | { readonly type: "teardown-failed"; readonly sandboxId: string; readonly error: SandportError }
  | {
      /** What the sandbox was used for, once its use ended (destroyed, kept, teardown failed). */
      readonly type: "usage";
      readonly sandboxId: string;
      readonly usage: SandboxUsage;
    };

/** Receives {@link OrchestratorEvent}s. */
export type OrchestratorListener = (event: OrchestratorEvent) => void;

/** @internal How the parts of one run emit: the run id is stamped on by the run. */
export type EmitEvent = (event: OrchestratorEventBody) => void;
