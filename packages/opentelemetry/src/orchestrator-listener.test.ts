// A real workload through SandboxOrchestrator on the local runtime, traced by
// the real OpenTelemetry SDK: the finished spans, their parents, attributes and
// statuses are what the README's table says.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { SandboxOrchestrator } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type LocalTestRuntime, localTestRuntime } from "@sandport/testkit/fakes";
import { otelListener } from "./index.js";
import { memoryTracer } from "./tracing.fixture.js";

const ERROR = 2;
const UNSET = 0;

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("otel-orchestrator", { isolation: "none" });
});
after(async () => {
  await local.cleanup();
});

describe("otelListener over a real orchestrator run", () => {
  test("a workload is one span with a child per step, the files and collection as span events, and its usage", async () => {
    const traced = memoryTracer();
    const orchestrator = new SandboxOrchestrator(local.runtime, {
      onEvent: await otelListener({ tracer: traced.tracer }),
    });
    const result = await orchestrator.run({
      launch: {},
      files: [{ path: "in.txt", content: "hello" }],
      steps: [
        { name: "copy", argv: ["cp", "in.txt", "out.txt"] },
        { name: "show", argv: ["cat", "out.txt"] },
      ],
      collect: ["out.txt"],
    });
    assert.equal(result.ok, true);

    const [workload, ...others] = traced.named("sandport.workload");
    assert.ok(workload);
    assert.deepEqual(others, []);
    assert.equal(workload.attributes["sandport.provider"], "local");
    assert.equal(workload.attributes["sandport.sandbox.id"], result.sandboxId);
    assert.equal(workload.attributes["sandport.outcome"], "destroyed");
    assert.equal(workload.attributes["sandport.sandbox.reused"], false);
    assert.equal(workload.attributes["sandport.usage.exec_count"], 2);
    assert.equal(workload.attributes["sandport.usage.sandbox_seconds"], result.usage?.sandboxSeconds);
    assert.equal(workload.attributes["sandport.usage.bytes_in"], 5);
    assert.equal(typeof workload.attributes["sandport.teardown.duration_ms"], "number");
    assert.equal(workload.status.code, UNSET);
    assert.equal(workload.parentSpanContext, undefined);
    assert.deepEqual(
      workload.events.map((event) => event.name),
      ["sandport.files_written", "sandport.collected"],
    );
    assert.equal(workload.events[0]?.attributes?.["sandport.files.bytes"], 5);
    assert.equal(workload.events[1]?.attributes?.["sandport.files.path"], "out.txt");

    const steps = traced.named("sandport.step");
    assert.deepEqual(
      steps.map((step) => [step.attributes["sandport.step.index"], step.attributes["sandport.step.name"]]),
      [
        [0, "copy"],
        [1, "show"],
      ],
    );
    for (const step of steps) {
      assert.equal(step.parentSpanContext?.spanId, workload.spanContext().spanId);
      assert.equal(step.spanContext().traceId, workload.spanContext().traceId);
      assert.equal(step.attributes["sandport.step.exit_code"], 0);
      assert.equal(step.attributes["sandport.step.timed_out"], false);
      assert.equal(step.attributes["sandport.step.truncated"], false);
      assert.equal(step.status.code, UNSET);
    }
    // The workload span ends last, at its teardown, so it covers its steps.
    const endOf = (time: [number, number]) => time[0] * 1e9 + time[1];
    assert.ok(steps.every((step) => endOf(step.endTime) <= endOf(workload.endTime)));
    assert.equal(traced.spans().at(-1), workload);
  });

  test("a failing step is an error span with its exit code, and the workload span is an error too", async () => {
    const traced = memoryTracer();
    const orchestrator = new SandboxOrchestrator(local.runtime, {
      onEvent: await otelListener({ tracer: traced.tracer }),
    });
    const result = await orchestrator.run({
      launch: {},
      steps: [
        { name: "fails", argv: ["sh", "-c", "exit 3"] },
        { name: "never", argv: ["true"] },
      ],
    });
    assert.equal(result.ok, false);
    const [step, ...more] = traced.named("sandport.step");
    assert.ok(step);
    assert.deepEqual(more, [], "the step after the failure never ran, so has no span");
    assert.equal(step.attributes["sandport.step.exit_code"], 3);
    assert.equal(step.status.code, ERROR);
    assert.equal(step.status.message, "step 0 (fails) exited with code 3");
    const [workload] = traced.named("sandport.workload");
    assert.ok(workload);
    assert.equal(step.parentSpanContext?.spanId, workload.spanContext().spanId);
    assert.equal(workload.status.code, ERROR);
    assert.equal(workload.attributes["sandport.outcome"], "destroyed");
    assert.equal(workload.attributes["sandport.usage.exec_count"], 1);
  });

  test("a kept sandbox's workload span says so, and the parent the caller passes is its parent", async () => {
    const traced = memoryTracer();
    const { trace, ROOT_CONTEXT } = await import("@opentelemetry/api");
    const root = traced.tracer.startSpan("caller");
    const onEvent = await otelListener({ tracer: traced.tracer, parent: trace.setSpan(ROOT_CONTEXT, root) });
    const orchestrator = new SandboxOrchestrator(local.runtime, { onEvent });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }], teardown: "keep" });
    root.end();
    assert.ok(result.handle);
    await local.runtime.destroy(result.handle);
    const [workload] = traced.named("sandport.workload");
    assert.equal(workload?.attributes["sandport.outcome"], "kept");
    assert.equal(workload?.parentSpanContext?.spanId, root.spanContext().spanId);
  });

  test("malformed options are INVALID_REQUEST, naming the key", async () => {
    const traced = memoryTracer();
    await expectCode(
      () => otelListener({ tracer: traced.tracer, tracr: 1 } as never),
      "INVALID_REQUEST",
      "unknown key",
    );
    await expectCode(() => otelListener({ tracer: {} } as never), "INVALID_REQUEST", "tracer");
  });
});
