import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A real OpenTelemetry SDK tracer whose finished spans are kept in memory, for tests. */
export function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("sandport-opentelemetry-test");
  return {
    tracer,
    /** The spans finished so far. */
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    /** The finished spans named `name`. */
    named: (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((span) => span.name === name),
  };
}

/** The span's duration in milliseconds, from its high-resolution start and end. */
export function durationMs(span: ReadableSpan): number {
  return span.duration[0] * 1000 + span.duration[1] / 1e6;
}
