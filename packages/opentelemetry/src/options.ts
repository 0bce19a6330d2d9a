import type { Context, Tracer } from "@opentelemetry/api";
import { invalidRequest, keyList, refuseUnknownKeys } from "@sandport/core";

/** Options of every listener factory in this package. */
export interface OtelListenerOptions {
  /** The tracer spans are started on, e.g. `trace.getTracer("my-service")`: the only OpenTelemetry setup the bridge uses. */
  readonly tracer: Tracer;
  /**
   * The context the listener's top-level spans are children of (e.g.
   * `trace.setSpan(context.active(), span)`). Default: the root context: the
   * bridge reads no active or global context the caller did not pass.
   */
  readonly parent?: Context;
}

const OPTION_KEYS = keyList<OtelListenerOptions>({ tracer: true, parent: true });

/** Refuses malformed options with `INVALID_REQUEST`, before any OpenTelemetry package is loaded. */
export function checkOptions(options: unknown, where: string): asserts options is OtelListenerOptions {
  if (typeof options !== "object" || options === null) throw invalidRequest(`${where} options must be an object`);
  refuseUnknownKeys(options, OPTION_KEYS, `${where} options`);
  const { tracer } = options as { tracer?: unknown };
  if (typeof (tracer as { startSpan?: unknown } | undefined)?.startSpan !== "function") {
    throw invalidRequest(`${where} options: tracer must be an OpenTelemetry Tracer (with startSpan)`);
  }
}
