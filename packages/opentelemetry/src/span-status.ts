import type { Span, SpanStatusCode, TimeInput } from "@opentelemetry/api";

/**
 * `SpanStatusCode.ERROR`, as its value: the enum is a run-time member of
 * `@opentelemetry/api`, and its values are fixed by the OpenTelemetry
 * specification, so the bridge need not load the package for it.
 */
const ERROR = 2 as SpanStatusCode;

/**
 * Marks a span failed with `message`; with an error, records it as the span's
 * exception (at `at`, or now) and names its code.
 */
export function failSpan(span: Span, message: string, error?: unknown, at?: TimeInput): void {
  span.setStatus({ code: ERROR, message });
  if (error instanceof Error) {
    span.recordException(error, at);
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") span.setAttribute("sandport.error.code", code);
  }
}
