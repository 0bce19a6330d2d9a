import type { Attributes, Context, Span } from "@opentelemetry/api";
import type { OrchestratorEvent, OrchestratorListener, SandboxUsage } from "@sandport/core";
import { ATTRIBUTES } from "./attributes.js";
import { loadOpenTelemetry } from "./internal/sdk.js";
import { checkOptions, type OtelListenerOptions } from "./options.js";
import { failSpan } from "./span-status.js";

/** A run's span while it is open, and what its teardown said until its usage arrives. */
interface OpenWorkload {
  readonly span: Span;
  readonly context: Context;
  readonly steps: Map<number, Span>;
  /** When teardown was reported (the span's end), once it was. */
  endedAt?: number;
}

/** An event of a run that came before its sandbox was placed, kept for the run's span. */
interface EarlyEvent {
  readonly name: string;
  readonly attributes: Attributes;
  readonly time: number;
}

/**
 * An {@link OrchestratorListener} that turns a `SandboxOrchestrator`'s events
 * into spans on `tracer`: one `sandport.workload` span per run or session
 * (from its first event to its teardown, ended once its `usage` arrives, or
 * at `acquire-failed` when no sandbox was acquired, with error status), one
 * `sandport.step` child per step, and span events for files written, files
 * collected, retries and failovers. Events are told apart by their `runId`, so
 * one listener serves concurrent runs. Loads `@opentelemetry/api` (an
 * optional peer) once; malformed options are `INVALID_REQUEST`, a missing API
 * `SDK_UNAVAILABLE`. Step output is not recorded.
 */
export async function otelListener(options: OtelListenerOptions): Promise<OrchestratorListener> {
  checkOptions(options, "otelListener");
  const api = await loadOpenTelemetry();
  const { tracer } = options;
  const parent = options.parent ?? api.ROOT_CONTEXT;
  const open = new Map<string, OpenWorkload>();
  const early = new Map<string, EarlyEvent[]>();

  /** An event of a run: on its span once it has one, else kept until it does. */
  const unplaced = (runId: string, name: string, attributes: Attributes) => {
    const workload = open.get(runId);
    if (workload) workload.span.addEvent(name, attributes);
    else early.set(runId, [...(early.get(runId) ?? []), { name, attributes, time: Date.now() }]);
  };

  const start = (runId: string, attributes: Attributes): OpenWorkload => {
    const before = early.get(runId) ?? [];
    early.delete(runId);
    const startTime = before[0]?.time ?? Date.now();
    const span = tracer.startSpan("sandport.workload", { startTime, attributes }, parent);
    for (const event of before) span.addEvent(event.name, event.attributes, event.time);
    const workload: OpenWorkload = { span, context: api.trace.setSpan(parent, span), steps: new Map() };
    open.set(runId, workload);
    return workload;
  };

  const workloadOf = (runId: string, sandboxId: string) =>
    open.get(runId) ?? start(runId, { [ATTRIBUTES.runId]: runId, [ATTRIBUTES.sandboxId]: sandboxId });

  const tornDown = (runId: string, sandboxId: string, outcome: string, attributes: Attributes = {}) => {
    const workload = workloadOf(runId, sandboxId);
    workload.span.setAttributes({ [ATTRIBUTES.outcome]: outcome, ...attributes });
    for (const step of workload.steps.values()) step.end();
    workload.steps.clear();
    workload.endedAt = Date.now();
    return workload;
  };

  return (event: OrchestratorEvent) => {
    switch (event.type) {
      case "launched": {
        const attributes = {
          [ATTRIBUTES.sandboxId]: event.sandboxId,
          [ATTRIBUTES.provider]: event.runtime.provider,
          [ATTRIBUTES.runtimeIndex]: event.runtime.index,
          [ATTRIBUTES.reused]: event.reused,
          [ATTRIBUTES.launchMs]: event.durationMs,
        };
        const workload = open.get(event.runId);
        if (workload) workload.span.setAttributes(attributes);
        else start(event.runId, { [ATTRIBUTES.runId]: event.runId, ...attributes });
        return;
      }
      case "failover":
        return unplaced(event.runId, "sandport.failover", {
          "sandport.failover.from": event.from.provider,
          "sandport.failover.to": event.to.provider,
          [ATTRIBUTES.errorCode]: event.code,
        });
      case "runtime-skipped":
        return unplaced(event.runId, "sandport.runtime_skipped", {
          [ATTRIBUTES.provider]: event.runtime.provider,
          [ATTRIBUTES.reason]: event.reason,
        });
      case "launch-reconciled":
        return unplaced(event.runId, "sandport.launch_reconciled", {
          // Nothing adopted: no attribute (an empty string would read as a sandbox id).
          ...(event.adopted === undefined ? {} : { "sandport.launch.adopted": event.adopted }),
          "sandport.launch.destroyed": [...event.destroyed],
        });
      case "retry":
        return unplaced(event.runId, "sandport.retry", {
          [ATTRIBUTES.operation]: event.operation,
          "sandport.retry.attempt": event.attempt,
          "sandport.retry.delay_ms": event.delayMs,
          ...codeOf(event.error),
        });
      case "files-written":
        workloadOf(event.runId, event.sandboxId).span.addEvent("sandport.files_written", {
          "sandport.files.count": event.paths.length,
          "sandport.files.bytes": event.bytes,
          [ATTRIBUTES.durationMs]: event.durationMs,
        });
        return;
      case "collected":
        workloadOf(event.runId, event.sandboxId).span.addEvent("sandport.collected", {
          "sandport.files.path": event.path,
          "sandport.files.bytes": event.bytes,
        });
        return;
      case "step-started": {
        const workload = workloadOf(event.runId, event.sandboxId);
        const attributes = {
          [ATTRIBUTES.sandboxId]: event.sandboxId,
          [ATTRIBUTES.stepIndex]: event.index,
          [ATTRIBUTES.stepName]: event.name,
        };
        workload.steps.set(event.index, tracer.startSpan("sandport.step", { attributes }, workload.context));
        return;
      }
      case "step-output":
        return;
      case "step-exited": {
        const workload = workloadOf(event.runId, event.sandboxId);
        const step =
          workload.steps.get(event.index) ??
          tracer.startSpan("sandport.step", { attributes: { [ATTRIBUTES.stepIndex]: event.index } }, workload.context);
        workload.steps.delete(event.index);
        const { result } = event;
        step.setAttributes({
          [ATTRIBUTES.stepName]: event.name,
          [ATTRIBUTES.timedOut]: result.timedOut,
          [ATTRIBUTES.truncated]: result.truncated,
          [ATTRIBUTES.stepMs]: result.durationMs,
          ...(result.exitCode === null ? {} : { [ATTRIBUTES.exitCode]: result.exitCode }),
          ...(result.limit === undefined ? {} : { [ATTRIBUTES.limit]: result.limit }),
        });
        if (result.exitCode !== 0) {
          const why = result.timedOut
            ? "timed out"
            : result.limit !== undefined
              ? `hit its ${result.limit} limit`
              : `exited with code ${result.exitCode}`;
          failSpan(step, `step ${event.index} (${event.name}) ${why}`);
          failSpan(workload.span, `step ${event.index} (${event.name}) ${why}`);
        }
        step.end();
        return;
      }
      case "destroyed":
        tornDown(event.runId, event.sandboxId, "destroyed", { [ATTRIBUTES.teardownMs]: event.durationMs });
        return;
      case "kept":
        tornDown(event.runId, event.sandboxId, "kept");
        return;
      case "teardown-failed": {
        const workload = tornDown(event.runId, event.sandboxId, "teardown-failed");
        failSpan(workload.span, `teardown failed: ${event.error.message}`, event.error);
        return;
      }
      case "usage": {
        const workload = workloadOf(event.runId, event.sandboxId);
        workload.span.setAttributes(usageAttributes(event.usage));
        workload.span.end(workload.endedAt);
        open.delete(event.runId);
        return;
      }
      case "acquire-failed": {
        const workload = open.get(event.runId) ?? start(event.runId, { [ATTRIBUTES.runId]: event.runId });
        workload.span.setAttribute(ATTRIBUTES.outcome, "not-acquired");
        failSpan(workload.span, `no sandbox was acquired: ${event.error.message}`, event.error);
        workload.span.end();
        open.delete(event.runId);
        return;
      }
    }
  };
}

/** The usage figures a workload span carries. */
function usageAttributes(usage: SandboxUsage): Attributes {
  return {
    [ATTRIBUTES.outcome]: usage.end,
    [ATTRIBUTES.sandboxSeconds]: usage.sandboxSeconds,
    [ATTRIBUTES.execCount]: usage.execs.count,
    [ATTRIBUTES.execMs]: usage.execs.durationMs,
    [ATTRIBUTES.bytesIn]: usage.bytesIn.files + usage.bytesIn.stdin,
    [ATTRIBUTES.bytesOut]: usage.bytesOut.files + usage.bytesOut.output,
    ...(usage.estimate?.total === undefined
      ? {}
      : { [ATTRIBUTES.estimateTotal]: usage.estimate.total, [ATTRIBUTES.estimateCurrency]: usage.estimate.currency }),
  };
}

/** `sandport.error.code` for an error that has a string code. */
function codeOf(error: unknown): Attributes {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? { [ATTRIBUTES.errorCode]: code } : {};
}
