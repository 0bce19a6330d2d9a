import type { Attributes, Context, Tracer } from "@opentelemetry/api";
import type { LimiterEvent, PoolEvent } from "@sandport/core";
import { ATTRIBUTES } from "./attributes.js";
import { loadOpenTelemetry } from "./internal/sdk.js";
import { checkOptions, type OtelListenerOptions } from "./options.js";
import { failSpan } from "./span-status.js";

/** How an event's span is drawn: how long before the event it began, and whether it failed. */
interface SpanShape {
  /** A wait or a duration the event reports: the span began this long before the event. Without it, the span is instantaneous. */
  lastedMs?: number;
  /** The span's error status: its message, and the error it records, if any. */
  failure?: { message: string; error?: unknown };
}

/**
 * Records one finished span for an event. Its end is the event's moment and its
 * start `lastedMs` before that, both read from one clock reading, so the span
 * lasts exactly what the event reports however long recording it takes.
 */
function recordSpan(
  tracer: Tracer,
  parent: Context,
  name: string,
  attributes: Attributes,
  shape: SpanShape = {},
): void {
  const at = Date.now();
  const startTime = shape.lastedMs === undefined ? at : at - shape.lastedMs;
  const span = tracer.startSpan(name, { startTime, attributes }, parent);
  if (shape.failure) failSpan(span, shape.failure.message, shape.failure.error, at);
  span.end(at);
}

/**
 * A `SandboxPool` `onEvent` listener that records each pool event as a
 * `sandport.pool.<event>` span on `tracer`: a lease's span (`sandport.pool.leased`)
 * covers the wait for a sandbox (`sandport.wait_ms`), a launch's and a reset's
 * span their duration; a failed launch, a failure and a replacement for an
 * error have error status. Loads `@opentelemetry/api` once.
 */
export async function otelPoolListener(options: OtelListenerOptions): Promise<(event: PoolEvent) => void> {
  checkOptions(options, "otelPoolListener");
  const api = await loadOpenTelemetry();
  const { tracer } = options;
  const parent = options.parent ?? api.ROOT_CONTEXT;
  return (event: PoolEvent) => {
    const name = `sandport.pool.${event.type}`;
    switch (event.type) {
      case "launched":
      case "reset": {
        const attributes = { [ATTRIBUTES.sandboxId]: event.sandboxId, [ATTRIBUTES.durationMs]: event.durationMs };
        recordSpan(tracer, parent, name, attributes, { lastedMs: event.durationMs });
        return;
      }
      case "leased": {
        const attributes = {
          [ATTRIBUTES.sandboxId]: event.sandboxId,
          [ATTRIBUTES.waitMs]: event.waitedMs,
          "sandport.pool.idle": event.idle,
        };
        recordSpan(tracer, parent, name, attributes, { lastedMs: event.waitedMs });
        return;
      }
      case "launch-failed": {
        recordSpan(
          tracer,
          parent,
          name,
          { "sandport.launch.key": event.launchKey },
          { failure: { message: event.error.message, error: event.error } },
        );
        return;
      }
      case "failure": {
        const { failure } = event;
        const attributes = {
          [ATTRIBUTES.operation]: failure.operation,
          ...(failure.sandboxId === undefined ? {} : { [ATTRIBUTES.sandboxId]: failure.sandboxId }),
          // A launch whose outcome was unknown and could not be cleaned up: where to search for what it left.
          ...(failure.launchKey === undefined ? {} : { "sandport.launch.key": failure.launchKey }),
        };
        recordSpan(tracer, parent, name, attributes, {
          failure: { message: failure.error.message, error: failure.error },
        });
        return;
      }
      case "replaced": {
        const attributes = { [ATTRIBUTES.sandboxId]: event.sandboxId, [ATTRIBUTES.reason]: event.reason };
        const failure = event.error && { message: event.error.message, error: event.error };
        recordSpan(tracer, parent, name, attributes, failure ? { failure } : {});
        return;
      }
      case "released":
        recordSpan(tracer, parent, name, {
          [ATTRIBUTES.sandboxId]: event.sandboxId,
          "sandport.pool.mode": event.mode,
        });
        return;
      case "destroyed":
        recordSpan(tracer, parent, name, {
          [ATTRIBUTES.sandboxId]: event.sandboxId,
          [ATTRIBUTES.reason]: event.reason,
        });
        return;
      case "reclaimed":
        recordSpan(tracer, parent, name, { [ATTRIBUTES.sandboxId]: event.sandboxId });
        return;
      case "usage": {
        const { usage } = event;
        recordSpan(tracer, parent, name, {
          [ATTRIBUTES.sandboxId]: usage.sandboxId,
          [ATTRIBUTES.provider]: usage.runtime.provider,
          [ATTRIBUTES.outcome]: usage.end,
          [ATTRIBUTES.sandboxSeconds]: usage.sandboxSeconds,
          [ATTRIBUTES.execCount]: usage.execs.count,
          [ATTRIBUTES.bytesIn]: usage.bytesIn.files + usage.bytesIn.stdin,
          [ATTRIBUTES.bytesOut]: usage.bytesOut.files + usage.bytesOut.output,
        });
        return;
      }
      case "closed":
        recordSpan(tracer, parent, name, {
          "sandport.pool.destroyed": event.destroyed,
          "sandport.pool.failures": event.failures,
        });
        return;
    }
  };
}

/**
 * A `limitRuntime` `onEvent` listener that records each limiter event as a
 * `sandport.limiter.<event>` span on `tracer`: an admission's span
 * (`sandport.limiter.admitted`) covers the call's wait in the queue
 * (`sandport.wait_ms`); a queue timeout's span has error status; each names
 * the orchestrator run that made the call (`sandport.run.id`) when one did.
 * Loads `@opentelemetry/api` once.
 */
export async function otelLimiterListener(options: OtelListenerOptions): Promise<(event: LimiterEvent) => void> {
  checkOptions(options, "otelLimiterListener");
  const api = await loadOpenTelemetry();
  const { tracer } = options;
  const parent = options.parent ?? api.ROOT_CONTEXT;
  return (event: LimiterEvent) => {
    const name = `sandport.limiter.${event.type}`;
    // Every event names its operation, and the orchestrator run whose call it was, when one made it.
    const base = {
      ...(event.runId === undefined ? {} : { [ATTRIBUTES.runId]: event.runId }),
      [ATTRIBUTES.operation]: event.operation,
    };
    switch (event.type) {
      case "queued":
        recordSpan(tracer, parent, name, {
          ...base,
          "sandport.limiter.queue_length": event.queueLength,
          "sandport.limiter.in_flight": event.inFlight,
          "sandport.limiter.live": event.live,
        });
        return;
      case "admitted":
        recordSpan(
          tracer,
          parent,
          name,
          {
            ...base,
            [ATTRIBUTES.waitMs]: event.waitedMs,
            "sandport.limiter.queue_length": event.queueLength,
            "sandport.limiter.in_flight": event.inFlight,
            "sandport.limiter.live": event.live,
          },
          { lastedMs: event.waitedMs },
        );
        return;
      case "queue-timeout": {
        const attributes = {
          ...base,
          [ATTRIBUTES.waitMs]: event.waitedMs,
          "sandport.limiter.queue_length": event.queueLength,
        };
        recordSpan(tracer, parent, name, attributes, {
          lastedMs: event.waitedMs,
          failure: { message: `${event.operation} waited ${event.waitedMs} ms in the queue and timed out` },
        });
        return;
      }
      case "rate-limited":
        recordSpan(tracer, parent, name, {
          ...base,
          "sandport.retry.attempt": event.attempt,
          "sandport.limiter.retrying": event.retrying,
          ...(event.retryAfterMs === undefined ? {} : { "sandport.limiter.retry_after_ms": event.retryAfterMs }),
        });
        return;
    }
  };
}
