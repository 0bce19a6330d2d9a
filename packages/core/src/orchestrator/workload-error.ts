import { SandportError } from "../errors/sandport-error.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { PossibleLeak, WorkloadResult } from "./workload-result.js";

/** The phase of a workload in which it failed. */
export type WorkloadStage = "validate" | "launch" | "files" | "step" | "collect" | "teardown";

/**
 * Rejection of `SandboxOrchestrator.run`. Teardown has already happened (or been
 * attempted) by the time you see it. The `code` is the underlying error's code;
 * `cause` is that error; `result` holds everything done before the failure,
 * teardown included, so nothing collected is lost. When a failed launch may
 * have left a sandbox running (`result.possibleLeaks`, or the cause says so),
 * `details.possibleLeak` is true and `details.launchKeys` names where to look.
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
    const leakedKeys = result.possibleLeaks.map((leak) => leak.launchKey);
    const possibleLeak = leakedKeys.length > 0 || cause.details.possibleLeak === true;
    const leakNote = leakedKeys.length > 0 ? `; a sandbox may have leaked (launch keys ${leakedKeys.join(", ")})` : "";
    super({
      code: cause.code,
      provider: cause.provider,
      retryable: false,
      message: `workload failed during ${stage}: ${cause.message}${teardownNote}${leakNote}`,
      cause,
      details: {
        stage,
        sandboxId: result.sandboxId,
        ...(possibleLeak ? { possibleLeak: true, launchKeys: leakedKeys } : {}),
      },
    });
    this.name = "WorkloadError";
    this.stage = stage;
    this.result = result;
  }
}

/**
 * `error`, or when some failed launch may have left a sandbox running, the
 * same error saying so: `details.possibleLeak` and `details.launchKeys`, the
 * leaks' reasons in the message, `error` as the cause.
 */
export function withPossibleLeaks(error: SandportError, leaks: readonly PossibleLeak[]): SandportError {
  if (leaks.length === 0) return error;
  const launchKeys = leaks.map((leak) => leak.launchKey);
  return new SandportError({
    code: error.code,
    provider: error.provider,
    retryable: false,
    message: `${error.message}; a sandbox may have leaked: ${leaks.map((leak) => leak.error.message).join("; ")}`,
    cause: error,
    details: { ...error.details, possibleLeak: true, launchKeys },
  });
}
