import type { Attributes, Context, Span } from "@opentelemetry/api";
import type { OrchestratorEvent, OrchestratorListener, SandboxUsage } from "@sandport/core";
import { ATTRIBUTES } from "./attributes.js";
import { loadOpenTelemetry } from "./internal/sdk.js";
import { checkOptions, type OtelListenerOptions } from "./options.js";
import { failSpan } from "./span-status.js";

/** A workload's span while it is open, and what its teardown said until its usage arrives. */
interface OpenWorkload {
  readonly span: Span;
  readonly context: Context;
  readonly steps: Map<number, Span>;
  /** When teardown was reported (the span's end), once it was. */
  endedAt?: number;
}

/** An event that came before any sandbox was placed, kept for the workload it led to. */
interface EarlyEvent {
  readonly name: string;
  readonly attributes: Attributes;
  readonly time: number;
}

/**
 * An {@link OrchestratorListener} that turns a `SandboxOrchestrator`'s events
 * into spans on `tracer`: one `sandport.workload` span per sandbox (from the
 * first event about it to its teardown, ended once its `usage` arrives), one
 * `sandport.step` child per step, and span events for files written, files
 * collected, retries and failovers. Loads `@opentelemetry/api` (an optional peer)
 * once; malformed options are `INVALID_REQUEST`, a missing API `SDK_UNAVAILABLE`.
 *
 * Events that name no sandbox (`failover`, `runtime-skipped`,
 * `launch-reconciled`, `retry`) go to the only open workload, or, with none or
 * several open, to the next workload launched: give concurrent runs a listener
 * each for exact attribution. Step output is not recorded.
 */
export async function otelListener(options: OtelListenerOptions): Promise<OrchestratorListener> {
  checkOptions(options, "otelListener");
  const api = await loadOpenTelemetry();
  const { tracer } = options;
  const parent = options.parent ?? api.ROOT_CONTEXT;
  const open = new Map<string, OpenWorkload>();
  let early: EarlyEvent[] = [];

  const unplaced = (name: string, attributes: Attributes) => {
    const only = open.size === 1 ? [...open.values()][0] : undefined;
    if (only) only.span.addEvent(name, attributes);
    else early.push({ name, attributes, time: Date.now() });
  };

  const start = (sandboxId: string, attributes: Attributes): OpenWorkload => {
    const startTime = early[0]?.time ?? Date.now();
    const span = tracer.startSpan("sandport.workload", { startTime, attributes }, parent);
    for (const event of early) span.addEvent(event.name, event.attributes, event.time);
    early = [];
    const workload: OpenWorkload = { span, context: api.trace.setSpan(parent, span), steps: new Map() };
    open.set(sandboxId, workload);
    return workload;
  };

  const workloadOf = (sandboxId: string) =>
    open.get(sandboxId) ?? start(sandboxId, { [ATTRIBUTES.sandboxId]: sandboxId });

  const tornDown = (sandboxId: string, outcome: string, attributes: Attributes = {}) => {
    const workload = workloadOf(sandboxId);
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
        const workload = open.get(event.sandboxId);
        if (workload) workload.span.setAttributes(attributes);
        else start(event.sandboxId, attributes);
        return;
      }
      case "failover":
        return unplaced("sandport.failover", {
          "sandport.failover.from": event.from.provider,
          "sandport.failover.to": event.to.provider,
          [ATTRIBUTES.errorCode]: event.code,
        });
      case "runtime-skipped":
        return unplaced("sandport.runtime_skipped", {
          [ATTRIBUTES.provider]: event.runtime.provider,
          [ATTRIBUTES.reason]: event.reason,
        });
      case "launch-reconciled":
        return unplaced("sandport.launch_reconciled", {
          "sandport.launch.adopted": event.adopted ?? "",
          "sandport.launch.destroyed": [...event.destroyed],
        });
      case "retry":
        return unplaced("sandport.retry", {
          [ATTRIBUTES.operation]: event.operation,
          "sandport.retry.attempt": event.attempt,
          "sandport.retry.delay_ms": event.delayMs,
          ...codeOf(event.error),
        });
      case "files-written":
        workloadOf(event.sandboxId).span.addEvent("sandport.files_written", {
          "sandport.files.count": event.paths.length,
          "sandport.files.bytes": event.bytes,
          [ATTRIBUTES.durationMs]: event.durationMs,
        });
        return;
      case "collected":
        workloadOf(event.sandboxId).span.addEvent("sandport.collected", {
          "sandport.files.path": event.path,
          "sandport.files.bytes": event.bytes,
        });
        return;
      case "step-started": {
        const workload = workloadOf(event.sandboxId);
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
        const workload = workloadOf(event.sandboxId);
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
        tornDown(event.sandboxId, "destroyed", { [ATTRIBUTES.teardownMs]: event.durationMs });
        return;
      case "kept":
        tornDown(event.sandboxId, "kept");
        return;
      case "teardown-failed": {
        const workload = tornDown(event.sandboxId, "teardown-failed");
        failSpan(workload.span, `teardown failed: ${event.error.message}`, event.error);
        return;
      }
      case "usage": {
        const workload = workloadOf(event.sandboxId);
        workload.span.setAttributes(usageAttributes(event.usage));
        workload.span.end(workload.endedAt);
        open.delete(event.sandboxId);
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
