import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type LocalTestRuntime,
  localTestRuntime,
  providerDown,
  RecordingRuntime,
  withoutMethods,
} from "@sandport/testkit/fakes";
import { STRUCTURAL_CAPABILITIES } from "../capabilities/capability-names.js";
import { resolveCapabilities } from "../capabilities/resolve-capabilities.js";
import { SandportError } from "../errors/sandport-error.js";
import type { LaunchSpec } from "../port/launch-spec.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { InstantClock, ManualClock } from "./clock.fixture.js";
import { limitRuntime } from "./limit-runtime.js";
import type { LimiterEvent } from "./limiter-options.js";

const rateLimited = (retryAfterMs?: number) => () =>
  new SandportError({ code: "RATE_LIMITED", provider: "recording", message: "429", retryAfterMs });

/** Every optional port member, by name. */
const OPTIONAL = [
  "execStream",
  "readFileStream",
  "startCommand",
  "commandStatus",
  "commandLogs",
  "getById",
  "findByLabels",
  "launchDetached",
  "stop",
  "start",
  "listDir",
  "stat",
  "mkdir",
  "remove",
  "spawn",
  "portEndpoint",
  "openTerminal",
  "snapshot",
  "listSnapshots",
  "deleteSnapshot",
  "fork",
] as const;

const members = (runtime: SandboxRuntime) =>
  OPTIONAL.filter((name) => typeof (runtime as unknown as Record<string, unknown>)[name] === "function");

/**
 * The local runtime with launches held at a gate: each `launch` waits for
 * `open()` before it reaches the real runtime, so a test sees exactly how
 * many the limiter let through.
 */
function gated(runtime: SandboxRuntime) {
  const waiting: (() => void)[] = [];
  let arrived = 0;
  const arrivals: (() => void)[] = [];
  const proxy = new Proxy(runtime, {
    get(target, key) {
      if (key === "launch") {
        return async (spec: LaunchSpec, op?: unknown) => {
          arrived++;
          for (const notify of arrivals.splice(0)) notify();
          await new Promise<void>((resolve) => waiting.push(resolve));
          return target.launch(spec, op as never);
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    runtime: proxy,
    arrived: () => arrived,
    /** Resolves once `count` launches reached the runtime. */
    async reached(count: number) {
      while (arrived < count) await new Promise<void>((resolve) => arrivals.push(resolve));
    },
    /** Lets the oldest held launch through. */
    open: () => waiting.shift()?.(),
  };
}

describe("limitRuntime over the local runtime", () => {
  let local: LocalTestRuntime;
  before(async () => {
    local = await localTestRuntime("fleet-limit");
  });
  after(async () => {
    await local.cleanup();
  });

  test("forwards every optional member the runtime has, and adds none: the same capabilities resolve", () => {
    const cut = withoutMethods(local.runtime, ["findByLabels", "execStream", "spawn"]);
    for (const runtime of [local.runtime, cut, new RecordingRuntime()] as SandboxRuntime[]) {
      const limited = limitRuntime(runtime);
      assert.deepEqual(members(limited), members(runtime));
      assert.deepEqual(resolveCapabilities(limited), resolveCapabilities(runtime));
      assert.equal(limited.provider, runtime.provider);
      assert.equal(limited.workspaceRoot, runtime.workspaceRoot);
    }
    // The cut runtime really lacks what was cut: the comparison above is not trivially true.
    const resolved = resolveCapabilities(limitRuntime(cut));
    assert.equal(resolved.labelSearch, "not-exposed");
    assert.equal(resolved.streaming, "not-exposed");
    assert.ok(STRUCTURAL_CAPABILITIES.every((name) => resolveCapabilities(local.runtime)[name] !== undefined));
  });

  test("forwarded members reach the runtime: a sandbox launched through the limiter is listed, read and destroyed", async () => {
    const limited = limitRuntime(local.runtime);
    const handle = await limited.launch({ labels: { test: "forward" } });
    await limited.writeFiles(handle, [{ path: "a.txt", content: "hello" }]);
    assert.equal(new TextDecoder().decode(await limited.readFile(handle, "a.txt")), "hello");
    assert.deepEqual(
      (await limited.findByLabels!({ test: "forward" })).map((found) => found.id),
      [handle.id],
    );
    assert.ok((await limited.listDir!(handle, ".")).some((entry) => entry.name === "a.txt"));
    const chunks: string[] = [];
    for await (const event of limited.execStream!(handle, { argv: ["echo", "streamed"] })) {
      if (event.type === "stdout") chunks.push(event.data);
    }
    assert.equal(chunks.join(""), "streamed\n");
    assert.equal(limited.load().live, 1);
    await limited.destroy(handle);
    assert.equal(limited.load().live, 0);
    assert.equal(await limited.getById!(handle.id), undefined);
  });

  test("at most maxLaunchesInFlight launches reach the runtime; the rest queue in order", async () => {
    const gate = gated(local.runtime);
    const events: LimiterEvent[] = [];
    const limited = limitRuntime(gate.runtime, { maxLaunchesInFlight: 2, onEvent: (event) => events.push(event) });
    const launches = [1, 2, 3].map((n) => limited.launch({ labels: { order: String(n) } }));
    await gate.reached(2);
    assert.deepEqual(limited.load(), { inFlight: 2, live: 0, queued: 1 });
    const queued = events.find((event) => event.type === "queued");
    assert.deepEqual(queued && { ...queued }, {
      type: "queued",
      operation: "launch",
      queueLength: 1,
      inFlight: 2,
      live: 0,
    });
    gate.open();
    const first = await launches[0];
    // The first slot freed let the third launch through: the runtime now saw three.
    await gate.reached(3);
    assert.equal(gate.arrived(), 3);
    gate.open();
    gate.open();
    const handles = [first, await launches[1], await launches[2]] as SandboxHandle[];
    assert.deepEqual(
      handles.map((handle) => handle.labels.order),
      ["1", "2", "3"],
    );
    assert.equal(limited.load().live, 3);
    const admitted = events.filter((event) => event.type === "admitted");
    assert.equal(admitted.length, 3);
    await Promise.all(handles.map((handle) => limited.destroy(handle)));
    assert.deepEqual(limited.load(), { inFlight: 0, live: 0, queued: 0 });
  });

  test("at most maxLive sandboxes: a launch waits until one launched through the limiter is destroyed", async () => {
    const events: LimiterEvent[] = [];
    const limited = limitRuntime(local.runtime, { maxLive: 1, onEvent: (event) => events.push(event) });
    const first = await limited.launch({ labels: { live: "first" } });
    let secondDone = false;
    const second = limited.launch({ labels: { live: "second" } }).then((handle) => {
      secondDone = true;
      return handle;
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(limited.load().queued, 1);
    assert.equal(secondDone, false);
    assert.deepEqual(await local.runtime.findByLabels({ live: "second" }), []);
    await limited.destroy(first);
    const handle = await second;
    assert.equal(handle.labels.live, "second");
    await limited.destroy(handle);
    assert.deepEqual(
      events.map((event) => event.type),
      ["admitted", "queued", "admitted"],
    );
  });

  test("a fork is a new sandbox: it waits for a live slot like a launch, and counts as live once made", async () => {
    const limited = limitRuntime(local.runtime, { maxLive: 2 });
    if (!limited.fork) return assert.fail("the local runtime forks; the limiter must forward fork");
    const source = await limited.launch({ labels: { fork: "source" } });
    const copy = await limited.fork(source, { labels: { fork: "copy" } });
    assert.deepEqual(limited.load(), { inFlight: 0, live: 2, queued: 0 });
    let thirdDone = false;
    const third = limited.fork(source, { labels: { fork: "third" } }).then((handle) => {
      thirdDone = true;
      return handle;
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(limited.load().queued, 1);
    assert.equal(thirdDone, false);
    assert.deepEqual(await local.runtime.findByLabels({ fork: "third" }), []);
    await limited.destroy(copy);
    const made = await third;
    assert.equal(made.labels.fork, "third");
    await limited.destroy(made);
    await limited.destroy(source);
    assert.deepEqual(limited.load(), { inFlight: 0, live: 0, queued: 0 });
  });

  test("a launch queued past queueDeadlineMs is refused with DEADLINE_EXCEEDED and nothing is launched", async () => {
    const clock = new ManualClock();
    const events: LimiterEvent[] = [];
    const limited = limitRuntime(local.runtime, {
      maxLive: 1,
      queueDeadlineMs: 5_000,
      clock,
      onEvent: (event) => events.push(event),
    });
    const first = await limited.launch({ labels: { deadline: "first" } });
    const refused = limited.launch({ labels: { deadline: "second" } });
    await clock.sleepsAsked(1);
    assert.equal(clock.sleeps[0], 5_000);
    clock.advance(5_000);
    await assert.rejects(refused, (error) => {
      assert.ok(SandportError.hasCode(error, "DEADLINE_EXCEEDED"));
      assert.equal(error.details.sent, false);
      assert.equal(error.details.waitedMs, 5_000);
      return true;
    });
    assert.deepEqual(await local.runtime.findByLabels({ deadline: "second" }), []);
    assert.deepEqual(limited.load(), { inFlight: 0, live: 1, queued: 0 });
    const timeout = events.find((event) => event.type === "queue-timeout");
    assert.deepEqual(timeout && { ...timeout }, {
      type: "queue-timeout",
      operation: "launch",
      waitedMs: 5_000,
      queueLength: 0,
    });
    await limited.destroy(first);
  });

  test("a shorter op.timeoutMs bounds the queue wait, and aborting a queued launch leaves the queue", async () => {
    const clock = new ManualClock();
    const limited = limitRuntime(local.runtime, { maxLive: 1, queueDeadlineMs: 60_000, clock });
    const first = await limited.launch({});
    const bounded = limited.launch({}, { timeoutMs: 250 });
    await clock.sleepsAsked(1);
    assert.equal(clock.sleeps[0], 250);
    clock.advance(250);
    await assert.rejects(bounded, (error) => SandportError.hasCode(error, "DEADLINE_EXCEEDED"));
    const controller = new AbortController();
    const aborted = limited.launch({}, { signal: controller.signal });
    await clock.sleepsAsked(2);
    assert.equal(limited.load().queued, 1);
    controller.abort(new Error("caller gave up"));
    await assert.rejects(aborted, (error) => SandportError.hasCode(error, "ABORTED"));
    assert.equal(limited.load().queued, 0);
    await limited.destroy(first);
    assert.equal((await local.runtime.findByLabels({})).length, 0);
  });
});

describe("limitRuntime and RATE_LIMITED", () => {
  function setup(options: { rateLimitRetries?: number } = {}) {
    const runtime = new RecordingRuntime();
    const clock = new InstantClock();
    const events: LimiterEvent[] = [];
    const limited = limitRuntime(runtime, { clock, onEvent: (event) => events.push(event), ...options });
    const calls = (method: string) => runtime.calls.filter((call) => call.method === method).length;
    return { runtime, clock, events, limited, calls };
  }

  test("a launch with a launch key waits exactly retryAfterMs, then is repeated", async () => {
    const { runtime, clock, events, limited, calls } = setup();
    runtime.fail({ method: "launch", error: rateLimited(1_500) });
    const handle = await limited.launch({ launchKey: "key-1" });
    assert.equal(calls("launch"), 2);
    assert.deepEqual(clock.sleeps, [1_500]);
    assert.ok(runtime.sandboxes.has(handle.id));
    assert.deepEqual(
      events.filter((event) => event.type === "rate-limited"),
      [{ type: "rate-limited", operation: "launch", attempt: 1, retryAfterMs: 1_500, retrying: true }],
    );
  });

  test("a launch without a launch key is not repeated", async () => {
    const { runtime, clock, limited, calls } = setup();
    runtime.fail({ method: "launch", error: rateLimited(1_500) });
    await assert.rejects(limited.launch({}), (error) => SandportError.hasCode(error, "RATE_LIMITED"));
    assert.equal(calls("launch"), 1);
    assert.deepEqual(clock.sleeps, []);
    assert.equal(limited.load().inFlight, 0);
  });

  test("exec and writeFiles are never repeated; the RATE_LIMITED error reaches the caller", async () => {
    const { runtime, clock, events, limited, calls } = setup();
    const handle = await limited.launch({});
    runtime.fail({ method: "exec", error: rateLimited(10) });
    runtime.fail({ method: "writeFiles", error: rateLimited(10) });
    await assert.rejects(limited.exec(handle, { argv: ["echo", "x"] }), (error) =>
      SandportError.hasCode(error, "RATE_LIMITED"),
    );
    await assert.rejects(limited.writeFiles(handle, [{ path: "a", content: "b" }]), (error) =>
      SandportError.hasCode(error, "RATE_LIMITED"),
    );
    assert.equal(calls("exec"), 1);
    assert.equal(calls("writeFiles"), 1);
    assert.deepEqual(clock.sleeps, []);
    assert.deepEqual(
      events.filter((event) => event.type === "rate-limited").map((event) => [event.operation, event.retrying]),
      [
        ["exec", false],
        ["writeFiles", false],
      ],
    );
  });

  test("reads and lookups wait exactly retryAfterMs and are repeated, up to rateLimitRetries", async () => {
    const { runtime, clock, limited, calls } = setup({ rateLimitRetries: 2 });
    const handle = await limited.launch({ labels: { find: "me" } });
    await limited.writeFiles(handle, [{ path: "a.txt", content: "x" }]);
    runtime.fail({ method: "readFile", error: rateLimited(700) });
    runtime.fail({ method: "findByLabels", error: rateLimited(300), times: 2 });
    runtime.fail({ method: "getById", error: rateLimited(50), times: 3 });
    assert.equal(new TextDecoder().decode(await limited.readFile(handle, "a.txt")), "x");
    assert.equal((await limited.findByLabels!({ find: "me" })).length, 1);
    await assert.rejects(limited.getById!(handle.id), (error) => SandportError.hasCode(error, "RATE_LIMITED"));
    assert.deepEqual(clock.sleeps, [700, 300, 300, 50, 50]);
    assert.equal(calls("readFile"), 2);
    assert.equal(calls("findByLabels"), 3);
    assert.equal(calls("getById"), 3);
  });

  test("no wait without retryAfterMs, nor one that would end past the call's timeoutMs", async () => {
    const { runtime, clock, limited, calls } = setup();
    const handle = await limited.launch({});
    runtime.fail({ method: "getById", error: rateLimited(undefined) });
    await assert.rejects(limited.getById!(handle.id), (error) => SandportError.hasCode(error, "RATE_LIMITED"));
    runtime.fail({ method: "getById", error: rateLimited(2_000) });
    await assert.rejects(limited.getById!(handle.id, { timeoutMs: 1_000 }), (error) =>
      SandportError.hasCode(error, "RATE_LIMITED"),
    );
    assert.equal(calls("getById"), 2);
    assert.deepEqual(clock.sleeps, []);
  });

  test("refuses malformed options before anything runs", () => {
    const runtime = new RecordingRuntime();
    for (const options of [{ maxLive: 0 }, { maxLaunchesInFlight: 1.5 }, { queueDeadlineMs: -1 }, { maxLife: 2 }]) {
      assert.throws(
        () => limitRuntime(runtime, options as never),
        (error) => SandportError.hasCode(error, "INVALID_REQUEST"),
      );
    }
    assert.equal(runtime.calls.length, 0);
  });

  test("a failed launch frees its slot for the next in the queue and counts nothing live", async () => {
    const recording = new RecordingRuntime().fail({ method: "launch", error: providerDown });
    const gate = gated(recording);
    const limited = limitRuntime(gate.runtime, { maxLaunchesInFlight: 1, maxLive: 1 });
    const failing = limited.launch({});
    const next = limited.launch({});
    await gate.reached(1);
    assert.deepEqual(limited.load(), { inFlight: 1, live: 0, queued: 1 });
    gate.open();
    await assert.rejects(failing, (error) => SandportError.hasCode(error, "PROVIDER_UNAVAILABLE"));
    await gate.reached(2);
    gate.open();
    const handle = await next;
    assert.ok(recording.sandboxes.has(handle.id));
    assert.deepEqual(limited.load(), { inFlight: 0, live: 1, queued: 0 });
  });

  test("a malformed launch spec is refused before it queues", async () => {
    const { runtime, events, limited } = setup();
    await assert.rejects(limited.launch({ labels: { "sandport.owner": "me" } }), (error) =>
      SandportError.hasCode(error, "INVALID_REQUEST"),
    );
    assert.deepEqual(events, []);
    assert.equal(runtime.calls.length, 0);
    assert.equal(limited.load().inFlight, 0);
  });
});
