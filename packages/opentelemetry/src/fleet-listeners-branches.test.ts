// The pool and limiter events a plain lease does not produce, traced by the real OpenTelemetry SDK: a
// workspace reset, a replacement for a failed health check, a reclaimed orphan and a failed destroy
// (pool, over the local runtime); a queue timeout and a rate limit waited out, with the run that made
// the call (limiter).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type LimiterEvent,
  limitRuntime,
  type PoolEvent,
  SandboxOrchestrator,
  SandboxPool,
  type SandboxRuntime,
  SandportError,
} from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type LocalTestRuntime, localTestRuntime, providerDown, RecordingRuntime } from "@sandport/testkit/fakes";
import { otelLimiterListener, otelPoolListener } from "./index.js";
import { memoryTracer } from "./tracing.fixture.js";

const ERROR = 2;

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("otel-fleet-branches", { isolation: "none" });
});
after(async () => {
  await local.cleanup();
});

/** A listener that records the events and traces them. */
function both<E>(trace: (event: E) => void, events: E[]): (event: E) => void {
  return (event) => {
    events.push(event);
    trace(event);
  };
}

describe("otelPoolListener: resets, replacements, reclaims and failures", () => {
  test("a cleaned workspace is a reset span lasting its duration; an unhealthy sandbox's replacement is an error span", async () => {
    const traced = memoryTracer();
    const events: PoolEvent[] = [];
    const pool = await SandboxPool.open(local.runtime, {
      poolId: "otel-reset",
      max: 1,
      reset: "clean-workspace",
      checkBeforeLease: true,
      healthCheck: { argv: ["sh", "-c", "test ! -e broken"] },
      onEvent: both(await otelPoolListener({ tracer: traced.tracer }), events),
    });
    const lease = await pool.lease();
    await pool.release(lease);
    const [reset] = traced.named("sandport.pool.reset");
    assert.equal(reset?.attributes["sandport.sandbox.id"], lease.handle.id);
    assert.equal(typeof reset?.attributes["sandport.duration_ms"], "number");

    // The idle sandbox breaks: the next lease's check fails, and it is replaced.
    await local.runtime.writeFiles(lease.handle, [{ path: "broken", content: "" }]);
    const next = await pool.lease();
    assert.notEqual(next.handle.id, lease.handle.id);
    await pool.release(next, { mode: "destroy" });
    assert.equal((await pool.close()).ok, true);
    const [replaced] = traced.named("sandport.pool.replaced");
    assert.ok(replaced, JSON.stringify(events.map((event) => event.type)));
    assert.equal(replaced.attributes["sandport.sandbox.id"], lease.handle.id);
    assert.equal(replaced.attributes["sandport.reason"], "unhealthy");
    assert.equal(replaced.status.code, ERROR);
  });

  test("a sandbox an earlier pool left is a reclaimed span; a destroy that fails is an error failure span", async () => {
    const traced = memoryTracer();
    const earlier = await SandboxPool.open(local.runtime, { poolId: "otel-reclaim", max: 1 });
    await earlier.whenSettled();
    const [orphan] = await local.runtime.findByLabels({ "sandport-pool": "otel-reclaim" });
    assert.ok(orphan);
    // The same id opened again, over a runtime whose destroys fail once the reclaim is done.
    let failDestroys = false;
    const flaky = new Proxy(local.runtime, {
      get(target, key) {
        if (key === "destroy" && failDestroys)
          return () =>
            Promise.reject(new SandportError({ code: "AUTH", provider: "local", message: "destroy refused" }));
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as SandboxRuntime;
    const pool = await SandboxPool.open(flaky, {
      poolId: "otel-reclaim",
      max: 1,
      onEvent: await otelPoolListener({ tracer: traced.tracer }),
    });
    const [reclaimed] = traced.named("sandport.pool.reclaimed");
    assert.equal(reclaimed?.attributes["sandport.sandbox.id"], orphan.id);

    const lease = await pool.lease();
    failDestroys = true;
    await expectCode(pool.release(lease, { mode: "destroy" }), "AUTH");
    failDestroys = false;
    await pool.close();
    await earlier.close();
    await flaky.destroy(lease.handle);
    const [failure] = traced.named("sandport.pool.failure");
    assert.ok(failure);
    assert.equal(failure.status.code, ERROR);
    assert.equal(failure.attributes["sandport.operation"], "destroy");
    assert.equal(failure.attributes["sandport.sandbox.id"], lease.handle.id);
    assert.equal(failure.attributes["sandport.error.code"], "AUTH");
  });
});

describe("otelPoolListener: a lost launch it could not clean up", () => {
  test("is a failure span naming the launch key to search by", async () => {
    const traced = memoryTracer();
    const events: PoolEvent[] = [];
    // Launches lose their answer (the outcome is unknown) and, once the pool is open, searches fail.
    let searchesFail = false;
    const runtime = new RecordingRuntime().fail({ method: "launch", error: providerDown, times: 3 });
    const lost = new Proxy(runtime, {
      get(target, key) {
        if (key === "findByLabels" && searchesFail)
          return () => Promise.reject(new SandportError({ code: "AUTH", provider: "recording", message: "no" }));
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const pool = await SandboxPool.open(lost, {
      poolId: "otel-lost",
      minIdle: 0,
      max: 1,
      onEvent: both(await otelPoolListener({ tracer: traced.tracer }), events),
    });
    searchesFail = true;
    await assert.rejects(pool.lease({ timeoutMs: 5_000 }));
    searchesFail = false;
    await pool.close();
    const failure = events.find((event) => event.type === "failure");
    assert.ok(failure?.type === "failure" && failure.failure.launchKey, JSON.stringify(events.map((e) => e.type)));
    const [span] = traced.named("sandport.pool.failure");
    assert.equal(span?.attributes["sandport.operation"], "launch");
    assert.equal(span?.attributes["sandport.launch.key"], failure.failure.launchKey);
    assert.equal(span?.status.code, ERROR);
  });
});

describe("otelLimiterListener: timeouts and rate limits", () => {
  test("a launch that waited past the queue deadline is an error span lasting its wait", async () => {
    const traced = memoryTracer();
    const events: LimiterEvent[] = [];
    const limited = limitRuntime(local.runtime, {
      maxLive: 1,
      queueDeadlineMs: 50,
      onEvent: both(await otelLimiterListener({ tracer: traced.tracer }), events),
    });
    const held = await limited.launch({});
    try {
      await expectCode(limited.launch({}), "DEADLINE_EXCEEDED");
    } finally {
      await limited.destroy(held);
    }
    const timeout = events.find((event) => event.type === "queue-timeout");
    const [span] = traced.named("sandport.limiter.queue-timeout");
    assert.ok(span && timeout);
    assert.equal(span.status.code, ERROR);
    assert.equal(span.attributes["sandport.operation"], "launch");
    assert.equal(span.attributes["sandport.wait_ms"], timeout.waitedMs);
    assert.equal("sandport.run.id" in span.attributes, false, "no run made this call");
  });

  test("a rate limit waited out is a span with the wait, the attempt and the run that made the call", async () => {
    const traced = memoryTracer();
    const runtime = new RecordingRuntime().fail({
      method: "launch",
      error: () => new SandportError({ code: "RATE_LIMITED", provider: "recording", message: "429", retryAfterMs: 5 }),
    });
    const limited = limitRuntime(runtime, { onEvent: await otelLimiterListener({ tracer: traced.tracer }) });
    const result = await new SandboxOrchestrator(limited).run({ launch: {}, steps: [{ argv: ["echo", "a"] }] });
    const [span, ...more] = traced.named("sandport.limiter.rate-limited");
    assert.ok(span);
    assert.deepEqual(more, []);
    assert.equal(span.attributes["sandport.operation"], "launch");
    assert.equal(span.attributes["sandport.retry.attempt"], 1);
    assert.equal(span.attributes["sandport.limiter.retrying"], true);
    assert.equal(span.attributes["sandport.limiter.retry_after_ms"], 5);
    assert.equal(span.attributes["sandport.run.id"], result.runId);
    assert.equal(span.status.code, 0);
  });
});
