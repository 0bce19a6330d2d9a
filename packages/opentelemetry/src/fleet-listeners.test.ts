// A real pool and a real limiter over the local runtime, traced by the real
// OpenTelemetry SDK: a lease's span covers its wait, an admission's span the
// time its launch queued.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Tracer } from "@opentelemetry/api";
import { type LimiterEvent, limitRuntime, type PoolEvent, SandboxPool } from "@sandport/core";
import { type LocalTestRuntime, localTestRuntime, providerDown } from "@sandport/testkit/fakes";
import { otelLimiterListener, otelPoolListener } from "./index.js";
import { durationMs, memoryTracer } from "./tracing.fixture.js";

const ERROR = 2;

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("otel-fleet", { isolation: "none" });
});
after(async () => {
  await local.cleanup();
});

describe("otelPoolListener over a real pool", () => {
  test("a lease is a sandport.pool.leased span with the sandbox and its wait; the launch before it is a span too", async () => {
    const traced = memoryTracer();
    const trace = await otelPoolListener({ tracer: traced.tracer });
    const events: PoolEvent[] = [];
    const pool = await SandboxPool.open(local.runtime, {
      poolId: "otel-pool",
      max: 1,
      onEvent: (event) => {
        events.push(event);
        trace(event);
      },
    });
    const lease = await pool.lease();
    await pool.release(lease, { mode: "destroy" });
    const report = await pool.close();
    assert.equal(report.ok, true);

    const leased = events.find((event) => event.type === "leased");
    assert.ok(leased);
    const [span, ...more] = traced.named("sandport.pool.leased");
    assert.ok(span);
    assert.deepEqual(more, []);
    assert.equal(span.attributes["sandport.sandbox.id"], lease.handle.id);
    assert.equal(span.attributes["sandport.wait_ms"], leased.waitedMs);
    assert.equal(span.status.code, 0);
    // The span starts when the wait began and ends at the lease: it lasts the wait.
    assert.ok(Math.abs(durationMs(span) - leased.waitedMs) < 0.001, `${durationMs(span)} vs ${leased.waitedMs}`);
    const [launched] = traced.named("sandport.pool.launched");
    assert.equal(launched?.attributes["sandport.sandbox.id"], lease.handle.id);
    assert.equal(typeof launched?.attributes["sandport.duration_ms"], "number");
    // The release, the destroy, the usage and the close say what they were.
    const attributesOf = (name: string) => traced.named(`sandport.pool.${name}`)[0]?.attributes;
    assert.equal(attributesOf("released")?.["sandport.pool.mode"], "destroy");
    assert.equal(attributesOf("destroyed")?.["sandport.reason"], "released");
    assert.equal(attributesOf("destroyed")?.["sandport.sandbox.id"], lease.handle.id);
    assert.equal(attributesOf("usage")?.["sandport.provider"], "local");
    assert.equal(attributesOf("usage")?.["sandport.outcome"], "destroyed");
    assert.equal(typeof attributesOf("usage")?.["sandport.usage.sandbox_seconds"], "number");
    assert.deepEqual(
      [attributesOf("closed")?.["sandport.pool.destroyed"], attributesOf("closed")?.["sandport.pool.failures"]],
      [report.destroyed.length, 0],
    );
    // Every event the pool emitted is one span, in order.
    assert.deepEqual(
      traced.spans().map((finished) => finished.name),
      events.map((event) => `sandport.pool.${event.type}`),
    );
  });

  test("a launch that fails is an error span carrying the error's code", async () => {
    const traced = memoryTracer();
    // The local runtime, but its launches fail as a provider that is down would.
    const down = new Proxy(local.runtime, {
      get(target, key) {
        if (key === "launch") return () => Promise.reject(providerDown());
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const pool = await SandboxPool.open(down, {
      poolId: "otel-pool-failing",
      max: 1,
      onEvent: await otelPoolListener({ tracer: traced.tracer }),
    });
    await assert.rejects(pool.lease());
    await pool.close();
    const [failed] = traced.named("sandport.pool.launch-failed");
    assert.ok(
      failed,
      traced
        .spans()
        .map((span) => span.name)
        .join(", "),
    );
    assert.equal(failed.status.code, ERROR);
    assert.equal(failed.attributes["sandport.error.code"], "PROVIDER_UNAVAILABLE");
  });
});

describe("otelLimiterListener over a real limiter", () => {
  test("a launch that queued behind another is a sandport.limiter.admitted span lasting its wait", async () => {
    const traced = memoryTracer();
    const trace = await otelLimiterListener({ tracer: traced.tracer });
    const events: LimiterEvent[] = [];
    const limited = limitRuntime(local.runtime, {
      maxLaunchesInFlight: 1,
      onEvent: (event) => {
        events.push(event);
        trace(event);
      },
    });
    const handles = await Promise.all([limited.launch({}), limited.launch({})]);
    await Promise.all(handles.map((handle) => limited.destroy(handle)));

    const waited = events.filter((event) => event.type === "admitted" && event.waitedMs > 0);
    assert.equal(waited.length, 1, JSON.stringify(events));
    assert.equal(traced.named("sandport.limiter.queued").length, 1);
    const admitted = traced.named("sandport.limiter.admitted");
    assert.equal(admitted.length, events.filter((event) => event.type === "admitted").length);
    const queuedSpan = admitted.find(
      (span) => span.attributes["sandport.wait_ms"] === (waited[0] as { waitedMs: number }).waitedMs,
    );
    assert.ok(queuedSpan);
    assert.equal(queuedSpan.attributes["sandport.operation"], "launch");
    assert.ok(Math.abs(durationMs(queuedSpan) - (waited[0] as { waitedMs: number }).waitedMs) < 0.001);
  });
});

describe("a span lasts what its event reports, however long recording it takes", () => {
  /** A tracer whose spans take `ms` to start, as on a loaded machine or behind a slow span processor. */
  function slowTracer(traced: ReturnType<typeof memoryTracer>, ms: number): Tracer {
    return {
      ...traced.tracer,
      startSpan: (...args: Parameters<Tracer["startSpan"]>) => {
        const span = traced.tracer.startSpan(...args);
        const until = performance.now() + ms;
        while (performance.now() < until) {
          // The event loop is held, as a busy machine would hold it.
        }
        return span;
      },
    } as Tracer;
  }

  test("a lease's and an admission's span end at the event: the time spent recording them is not added", async () => {
    const traced = memoryTracer();
    const pool = await otelPoolListener({ tracer: slowTracer(traced, 15) });
    const limiter = await otelLimiterListener({ tracer: slowTracer(traced, 15) });
    pool({ type: "leased", sandboxId: "sbx-1", waitedMs: 40.25, idle: 0 });
    limiter({ type: "admitted", operation: "launch", waitedMs: 12.5, queueLength: 0, inFlight: 1, live: 1 });
    limiter({ type: "queue-timeout", operation: "launch", waitedMs: 30, queueLength: 2 });
    const lasted = (name: string) => traced.named(name).map((span) => Math.round(durationMs(span) * 1000) / 1000);
    assert.deepEqual(lasted("sandport.pool.leased"), [40.25]);
    assert.deepEqual(lasted("sandport.limiter.admitted"), [12.5]);
    assert.deepEqual(lasted("sandport.limiter.queue-timeout"), [30]);
    // An instantaneous event's span is instantaneous.
    pool({ type: "released", sandboxId: "sbx-1", mode: "destroy" });
    assert.deepEqual(lasted("sandport.pool.released"), [0]);
  });
});
