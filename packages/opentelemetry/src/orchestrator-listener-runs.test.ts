// The otelListener branches a plain successful run does not reach, traced by the real OpenTelemetry
// SDK: events before any sandbox exists (failover, retry, a reconciled launch) on the span of the run
// they belong to, a run that acquired no sandbox, a failed teardown, a timed-out step and a priced
// usage. Failures are scripted on the recording runtime (in memory); the timed-out step runs locally.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { SandboxOrchestrator, SandportError, type WorkloadResult } from "@sandport/core";
import { type LocalTestRuntime, localTestRuntime, providerDown, RecordingRuntime } from "@sandport/testkit/fakes";
import { otelListener } from "./index.js";
import { memoryTracer } from "./tracing.fixture.js";

const ERROR = 2;
const fastRetry = { initialDelayMs: 1, jitter: "none", budgetMs: 2_000 } as const;
const refused = () =>
  new SandportError({ code: "RATE_LIMITED", provider: "recording", message: "429", details: { sent: true } });

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("otel-runs", { isolation: "none" });
});
after(async () => {
  await local.cleanup();
});

describe("otelListener: events told apart by run", () => {
  test("a failover lands on the span of the run that moved, not on a concurrent run's", async () => {
    const traced = memoryTracer();
    const primary = new RecordingRuntime().fail({ method: "launch", error: refused });
    const fallback = new RecordingRuntime();
    const orchestrator = new SandboxOrchestrator([primary, fallback], {
      retry: fastRetry,
      onEvent: await otelListener({ tracer: traced.tracer }),
    });
    const results = await Promise.all([
      orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "a"] }] }),
      orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "b"] }] }),
    ]);
    const moved = results.find((result) => result.runtime?.index === 1) as WorkloadResult;
    assert.ok(moved, "one run moved to the fallback");
    const spans = traced.named("sandport.workload");
    assert.equal(spans.length, 2);
    for (const span of spans) {
      const failovers = span.events.filter((event) => event.name === "sandport.failover");
      const own = span.attributes["sandport.run.id"] === moved.runId;
      assert.equal(failovers.length, own ? 1 : 0, `span of run ${span.attributes["sandport.run.id"]}`);
      if (own) {
        assert.deepEqual(failovers[0]?.attributes, {
          "sandport.failover.from": "recording",
          "sandport.failover.to": "recording",
          "sandport.error.code": "RATE_LIMITED",
        });
        assert.equal(span.attributes["sandport.runtime.index"], 1);
        assert.equal(span.attributes["sandport.sandbox.id"], moved.sandboxId);
      }
    }
  });

  test("a run that acquired no sandbox is an error span of its own, and the next run's span has none of its events", async () => {
    const traced = memoryTracer();
    const primary = new RecordingRuntime().fail({ method: "launch", error: refused });
    const fallback = new RecordingRuntime().fail({ method: "launch", error: refused });
    const orchestrator = new SandboxOrchestrator([primary, fallback], {
      retry: fastRetry,
      launchAttempts: 1,
      onEvent: await otelListener({ tracer: traced.tracer }),
    });
    const failed = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "a"] }] }).then(
      () => assert.fail("expected a rejection"),
      (error: { result: WorkloadResult }) => error.result,
    );
    const next = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "b"] }] });
    const [first, second, ...more] = traced.named("sandport.workload");
    assert.deepEqual(more, []);
    assert.ok(first && second);
    assert.equal(first.attributes["sandport.run.id"], failed.runId);
    assert.equal(first.status.code, ERROR);
    assert.match(first.status.message ?? "", /^no sandbox was acquired: /);
    assert.equal(first.attributes["sandport.error.code"], "RATE_LIMITED");
    assert.equal(first.attributes["sandport.outcome"], "not-acquired");
    assert.deepEqual(
      first.events.map((event) => event.name),
      ["sandport.failover", "exception"],
    );
    assert.equal(second.attributes["sandport.run.id"], next.runId);
    assert.equal(second.status.code, 0);
    assert.deepEqual(second.events, [], "the failed run's failover is not on the next run's span");
  });

  test("a retry is a span event with its operation, attempt, delay and the error's code", async () => {
    const traced = memoryTracer();
    const runtime = new RecordingRuntime().fail({ method: "readFile", error: providerDown });
    const orchestrator = new SandboxOrchestrator(runtime, {
      retry: fastRetry,
      onEvent: await otelListener({ tracer: traced.tracer }),
    });
    await orchestrator.run({ launch: {}, files: [{ path: "out.txt", content: "x" }], collect: ["out.txt"] });
    const [workload] = traced.named("sandport.workload");
    const retry = workload?.events.find((event) => event.name === "sandport.retry");
    assert.ok(retry, JSON.stringify(workload?.events.map((event) => event.name)));
    assert.equal(retry.attributes?.["sandport.operation"], "readFile");
    assert.equal(retry.attributes?.["sandport.retry.attempt"], 1);
    assert.equal(typeof retry.attributes?.["sandport.retry.delay_ms"], "number");
    assert.equal(retry.attributes?.["sandport.error.code"], "PROVIDER_UNAVAILABLE");
  });

  test("a reconciled launch is a span event naming what was destroyed, and no adopted sandbox when none was", async () => {
    const traced = memoryTracer();
    // The create happened, its answer was lost: the orchestrator finds the sandbox by launch key and destroys it.
    const runtime = new RecordingRuntime().fail({ method: "launch", error: providerDown, afterWork: true });
    const orchestrator = new SandboxOrchestrator(runtime, {
      retry: fastRetry,
      onEvent: await otelListener({ tracer: traced.tracer }),
    });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "a"] }] });
    const [workload] = traced.named("sandport.workload");
    const reconciled = workload?.events.find((event) => event.name === "sandport.launch_reconciled");
    assert.ok(reconciled, JSON.stringify(workload?.events.map((event) => event.name)));
    const destroyed = reconciled.attributes?.["sandport.launch.destroyed"] as string[];
    assert.equal(destroyed.length, 1);
    assert.notEqual(destroyed[0], result.sandboxId);
    assert.equal(
      "sandport.launch.adopted" in (reconciled.attributes ?? {}),
      false,
      "nothing adopted: no attribute, not an empty one",
    );
  });
});

describe("otelListener: error statuses and usage", () => {
  test("a teardown that fails is an error on the workload span, with the error recorded", async () => {
    const traced = memoryTracer();
    const runtime = new RecordingRuntime().fail({
      method: "destroy",
      error: () => new SandportError({ code: "AUTH", provider: "recording", message: "key revoked" }),
      times: 10,
    });
    const orchestrator = new SandboxOrchestrator(runtime, {
      retry: fastRetry,
      onEvent: await otelListener({ tracer: traced.tracer }),
    });
    await assert.rejects(orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "a"] }] }));
    const [workload] = traced.named("sandport.workload");
    assert.ok(workload);
    assert.equal(workload.status.code, ERROR);
    assert.match(workload.status.message ?? "", /^teardown failed: /);
    assert.equal(workload.attributes["sandport.error.code"], "AUTH");
    assert.equal(workload.attributes["sandport.outcome"], "teardown-failed");
    assert.ok(workload.events.some((event) => event.name === "exception"));
  });

  test("a step that timed out is an error span without an exit code, saying it timed out", async () => {
    const traced = memoryTracer();
    const orchestrator = new SandboxOrchestrator(local.runtime, {
      onEvent: await otelListener({ tracer: traced.tracer }),
    });
    const result = await orchestrator.run({
      launch: {},
      steps: [{ name: "slow", argv: ["sleep", "5"], timeoutMs: 300 }],
    });
    assert.equal(result.steps[0]?.result.timedOut, true);
    const [step] = traced.named("sandport.step");
    assert.ok(step);
    assert.equal(step.status.code, ERROR);
    assert.equal(step.status.message, "step 0 (slow) timed out");
    assert.equal(step.attributes["sandport.step.timed_out"], true);
    assert.equal(
      "sandport.step.exit_code" in step.attributes,
      result.steps[0]?.result.exitCode !== null,
      "an exit code only where the process had one",
    );
    assert.equal(traced.named("sandport.workload")[0]?.status.code, ERROR);
  });

  test("a priced usage puts the estimate's total and currency on the workload span", async () => {
    const traced = memoryTracer();
    const orchestrator = new SandboxOrchestrator(new RecordingRuntime(), {
      onEvent: await otelListener({ tracer: traced.tracer }),
      prices: { currency: "EUR", providers: { recording: { sandboxSecond: 2 } } },
    });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "a"] }] });
    const [workload] = traced.named("sandport.workload");
    assert.equal(workload?.attributes["sandport.usage.estimate_currency"], "EUR");
    assert.equal(workload?.attributes["sandport.usage.estimate_total"], result.usage?.estimate?.total);
    assert.equal(typeof result.usage?.estimate?.total, "number");
  });

  test("a usage the price table cannot price carries no estimate attributes", async () => {
    const traced = memoryTracer();
    const orchestrator = new SandboxOrchestrator(new RecordingRuntime(), {
      onEvent: await otelListener({ tracer: traced.tracer }),
      prices: { currency: "EUR", providers: { elsewhere: { sandboxSecond: 2 } } },
    });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "a"] }] });
    assert.equal(result.usage?.estimate?.total, undefined);
    const [workload] = traced.named("sandport.workload");
    assert.equal("sandport.usage.estimate_total" in (workload?.attributes ?? {}), false);
    assert.equal("sandport.usage.estimate_currency" in (workload?.attributes ?? {}), false);
    assert.equal(workload?.attributes["sandport.usage.exec_count"], 1);
  });
});
