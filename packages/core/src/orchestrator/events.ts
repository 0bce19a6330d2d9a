import type { SandportError } from "../errors/sandport-error.js";
import type { ExecResult } from "../port/exec-result.js";

/**
 * Progress of a workload or session, for UIs and logs. Events arrive in order.
 * A listener that throws derails nothing: its errors are collected and
 * reported (`WorkloadResult.listenerErrors`), never thrown into the workload.
 */
export type OrchestratorEvent =
  | { readonly type: "launched"; readonly sandboxId: string; readonly reused: boolean; readonly durationMs: number }
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
  | { readonly type: "destroyed"; readonly sandboxId: string; readonly durationMs: number }
  | { readonly type: "kept"; readonly sandboxId: string }
  | { readonly type: "teardown-failed"; readonly sandboxId: string; readonly error: SandportError };

/** Receives {@link OrchestratorEvent}s. */
export type OrchestratorListener = (event: OrchestratorEvent) => void;
