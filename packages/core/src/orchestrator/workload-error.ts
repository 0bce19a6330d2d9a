import { SandportError } from "../errors/sandport-error.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { WorkloadResult } from "./workload-result.js";

/** The phase of a workload in which it failed. */
export type WorkloadStage = "validate" | "launch" | "files" | "step" | "collect" | "teardown";

/**
 * Rejection of `SandboxOrchestrator.run`. Teardown has already happened (or been
 * attempted) by the time you see it. The `code` is the underlying error's code;
 * `cause` is that error; `result` holds everything done before the failure,
 * teardown included, so nothing collected is lost.
 */
export class WorkloadError<H extends SandboxHandle = SandboxHandle> extends SandportError {
  /** Where the workload failed. */
  readonly stage: WorkloadStage;
  /** What was done, including the teardown report. */
  readonly result: WorkloadResult<H>;

  constructor(stage: WorkloadStage, cause: SandportError, result: WorkloadResult<H>) {
    const teardownNote =
      stage !== "teardown" && result.teardown.outcome === "failed"
        ? `; teardown also failed: ${result.teardown.error?.message}`
        : "";
    super({
      code: cause.code,
      provider: cause.provider,
      retryable: false,
      message: `workload failed during ${stage}: ${cause.message}${teardownNote}`,
      cause,
      details: { stage, sandboxId: result.sandboxId },
    });
    this.name = "WorkloadError";
    this.stage = stage;
    this.result = result;
  }
}
