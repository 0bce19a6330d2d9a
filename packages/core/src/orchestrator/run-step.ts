import { SandportError } from "../errors/sandport-error.js";
import type { ExecEvent } from "../port/exec-event.js";
import type { ExecRequest } from "../port/exec-request.js";
import type { ExecResult } from "../port/exec-result.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import type { EmitEvent } from "./events.js";
import type { OrchestratorTimeouts } from "./options.js";
import type { WorkloadStep } from "./workload.js";
import type { StepRecord } from "./workload-result.js";

/**
 * Runs one step, streaming its output as `step-output` events where the
 * runtime can stream. Steps are never retried: a command may not be idempotent.
 */
export async function runStep<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
  step: WorkloadStep,
  index: number,
  emit: EmitEvent,
  timeouts: OrchestratorTimeouts,
  signal: AbortSignal | undefined,
): Promise<StepRecord> {
  const { name = `step ${index}`, continueOnFailure: _ignored, ...request } = step;
  const op = { signal, timeoutMs: (step.timeoutMs ?? timeouts.stepMs) + timeouts.execGraceMs };
  const startedAt = new Date().toISOString();
  const started = performance.now();
  emit({ type: "step-started", sandboxId: handle.id, index, name });
  const execStream = runtime.execStream?.bind(runtime);
  const result = execStream
    ? await drainStream(runtime.provider, execStream(handle, request as ExecRequest, op), (stream, data) =>
        emit({ type: "step-output", sandboxId: handle.id, index, stream, data }),
      )
    : await runtime.exec(handle, request as ExecRequest, op);
  emit({ type: "step-exited", sandboxId: handle.id, index, name, result });
  return { index, name, startedAt, durationMs: performance.now() - started, result };
}

async function drainStream(
  provider: string,
  stream: AsyncIterable<ExecEvent>,
  onOutput: (stream: "stdout" | "stderr", data: string) => void,
): Promise<ExecResult> {
  for await (const event of stream) {
    if (event.type === "stdout" || event.type === "stderr") onOutput(event.type, event.data);
    else if (event.type === "exited") return event.result;
  }
  throw new SandportError({
    code: "PROVIDER_UNAVAILABLE",
    provider,
    retryable: false,
    message: "the output stream ended without an exit event",
  });
}
