import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import type { LimiterEvent, PoolEvent } from "@sandport/core";
import { ATTRIBUTES } from "./attributes.js";
import { loadOpenTelemetry } from "./internal/sdk.js";
import { checkOptions, type OtelListenerOptions } from "./options.js";
import { failSpan } from "./span-status.js";

/**
 * Starts and ends one span for an event: it began `lastedMs` before now (a
 * wait or a duration the event reports), or is instantaneous without one.
 */
function spanFor(tracer: Tracer, parent: Context, name: string, attributes: Attributes, lastedMs?: number): Span {
  const now = Date.now();
  const startTime = lastedMs === undefined ? now : now - lastedMs;
  const span = tracer.startSpan(name, { startTime, attributes }, parent);
  return span;
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
        spanFor(tracer, parent, name, attributes, event.durationMs).end();
        return;
      }
      case "leased": {
        const attributes = {
          [ATTRIBUTES.sandboxId]: event.sandboxId,
          [ATTRIBUTES.waitMs]: event.waitedMs,
          "sandport.pool.idle": event.idle,
        };
        spanFor(tracer, parent, name, attributes, event.waitedMs).end();
        return;
      }
      case "launch-failed": {
        const span = spanFor(tracer, parent, name, { "sandport.launch.key": event.launchKey });
        failSpan(span, event.error.message, event.error);
        span.end();
        return;
      }
      case "failure": {
        const { failure } = event;
        const span = spanFor(tracer, parent, name, {
          [ATTRIBUTES.operation]: failure.operation,
          ...(failure.sandboxId === undefined ? {} : { [ATTRIBUTES.sandboxId]: failure.sandboxId }),
          // A launch whose outcome was unknown and could not be cleaned up: where to search for what it left.
          ...(failure.launchKey === undefined ? {} : { "sandport.launch.key": failure.launchKey }),
        });
        failSpan(span, failure.error.message, failure.error);
        span.end();
        return;
      }
      case "replaced": {
        const span = spanFor(tracer, parent, name, {
          [ATTRIBUTES.sandboxId]: event.sandboxId,
          [ATTRIBUTES.reason]: event.reason,
        });
        if (event.error) failSpan(span, event.error.message, event.error);
        span.end();
        return;
      }
      case "released":
        spanFor(tracer, parent, name, {
          [ATTRIBUTES.sandboxId]: event.sandboxId,
          "sandport.pool.mode": event.mode,
        }).end();
        return;
      case "destroyed":
        spanFor(tracer, parent, name, {
          [ATTRIBUTES.sandboxId]: event.sandboxId,
          [ATTRIBUTES.reason]: event.reason,
        }).end();
        return;
      case "reclaimed":
        spanFor(tracer, parent, name, { [ATTRIBUTES.sandboxId]: event.sandboxId }).end();
        return;
      case "usage": {
        const { usage } = event;
        spanFor(tracer, parent, name, {
          [ATTRIBUTES.sandboxId]: usage.sandboxId,
          [ATTRIBUTES.provider]: usage.runtime.provider,
          [ATTRIBUTES.outcome]: usage.end,
          [ATTRIBUTES.sandboxSeconds]: usage.sandboxSeconds,
          [ATTRIBUTES.execCount]: usage.execs.count,
          [ATTRIBUTES.bytesIn]: usage.bytesIn.files + usage.bytesIn.stdin,
          [ATTRIBUTES.bytesOut]: usage.bytesOut.files + usage.bytesOut.output,
        }).end();
        return;
      }
      case "closed":
        spanFor(tracer, parent, name, {
          "sandport.pool.destroyed": event.destroyed,
          "sandport.pool.failures": event.failures,
        }).end();
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
        spanFor(tracer, parent, name, {
          ...base,
          "sandport.limiter.queue_length": event.queueLength,
          "sandport.limiter.in_flight": event.inFlight,
          "sandport.limiter.live": event.live,
        }).end();
        return;
      case "admitted":
        spanFor(
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
          event.waitedMs,
        ).end();
        return;
      case "queue-timeout": {
        const span = spanFor(
          tracer,
          parent,
          name,
          {
            ...base,
            [ATTRIBUTES.waitMs]: event.waitedMs,
            "sandport.limiter.queue_length": event.queueLength,
          },
          event.waitedMs,
        );
        failSpan(span, `${event.operation} waited ${event.waitedMs} ms in the queue and timed out`);
        span.end();
        return;
      }
      case "rate-limited":
        spanFor(tracer, parent, name, {
          ...base,
          "sandport.retry.attempt": event.attempt,
          "sandport.limiter.retrying": event.retrying,
          ...(event.retryAfterMs === undefined ? {} : { "sandport.limiter.retry_after_ms": event.retryAfterMs }),
        }).end();
        return;
    }
  };
}
