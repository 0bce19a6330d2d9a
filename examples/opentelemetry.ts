// examples/opentelemetry.ts — an orchestrated workload and a pool lease, traced with OpenTelemetry.
// The spans go to the SDK's in-memory exporter so the example runs offline; export them with OTLP in practice.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { SandboxOrchestrator, SandboxPool } from "sandport/core";
import { LocalRuntime } from "sandport/local";
import { otelListener, otelPoolListener } from "sandport/opentelemetry";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("example"); // in an application: trace.getTracer(...) from its registered provider

const runtime = new LocalRuntime();
const orchestrator = new SandboxOrchestrator(runtime, { onEvent: await otelListener({ tracer }) });
await orchestrator.run({ launch: {}, steps: [{ name: "test", shell: "echo 2 tests passed" }] });

const pool = await SandboxPool.open(runtime, {
  poolId: "example-otel",
  max: 1,
  onEvent: await otelPoolListener({ tracer }),
});
await pool.release(await pool.lease(), { mode: "destroy" });
await pool.close();

for (const span of exporter.getFinishedSpans()) {
  const { attributes } = span;
  if (span.name === "sandport.step")
    console.log(span.name, attributes["sandport.step.name"], "exit", attributes["sandport.step.exit_code"]);
  if (span.name === "sandport.workload")
    console.log(
      span.name,
      attributes["sandport.provider"],
      attributes["sandport.outcome"],
      `${attributes["sandport.usage.exec_count"]} exec`,
    );
  if (span.name === "sandport.pool.leased") console.log(span.name, "waited", attributes["sandport.wait_ms"], "ms");
}
