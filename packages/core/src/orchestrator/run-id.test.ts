// Every event of a run carries the run's id: one listener shared by concurrent runs tells them apart,
// the events before any sandbox exists included, and a limiter under the runtime names the run that
// made each call. Over the recording runtime (in memory), with its failures scripted.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { SandportError } from "../errors/sandport-error.js";
import { InstantClock } from "../fleet/clock.fixture.js";
import { limitRuntime } from "../fleet/limit-runtime.js";
import type { LimiterEvent } from "../fleet/limiter-options.js";
import type { OrchestratorEvent } from "./events.js";
import { SandboxOrchestrator } from "./sandbox-orchestrator.js";
import { WorkloadError } from "./workload-error.js";

const fastRetry = { initialDelayMs: 1, jitter: "none", budgetMs: 2_000 } as const;

const refused = () =>
  new SandportError({ code: "RATE_LIMITED", provider: "recording", message: "429", details: { sent: true } });

const rateLimited = (retryAfterMs: number) => () =>
  new SandportError({ code: "RATE_LIMITED", provider: "recording", message: "429", retryAfterMs });

describe("run ids on orchestrator events", () => {
  test("two concurrent runs on one listener: each event carries the id of the run it belongs to", async () => {
    const events: OrchestratorEvent[] = [];
    const orchestrator = new SandboxOrchestrator(new RecordingRuntime(), {
      retry: fastRetry,
      onEvent: (event) => events.push(event),
    });
    const workload = { launch: {}, files: [{ path: "in.txt", content: "x" }], steps: [{ argv: ["echo", "hi"] }] };
    const [first, second] = await Promise.all([orchestrator.run(workload), orchestrator.run(workload)]);
    assert.notEqual(first.runId, second.runId);
    for (const result of [first, second]) {
      const own = events.filter((event) => event.runId === result.runId);
      assert.deepEqual(
        own.map((event) => event.type),
        ["launched", "files-written", "step-started", "step-output", "step-exited", "destroyed", "usage"],
      );
      assert.ok(own.every((event) => !("sandboxId" in event) || event.sandboxId === result.sandboxId));
    }
    assert.equal(events.length, 14, "no event without a run");
  });

  test("a failover and a retry, before any sandbox exists, carry the run id", async () => {
    const primary = new RecordingRuntime().fail({ method: "launch", error: refused });
    const fallback = new RecordingRuntime().fail({
      method: "readFile",
      error: () => new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "recording", message: "503" }),
    });
    const events: OrchestratorEvent[] = [];
    const orchestrator = new SandboxOrchestrator([primary, fallback], {
      retry: fastRetry,
      onEvent: (event) => events.push(event),
    });
    const result = await orchestrator.run({
      launch: {},
      files: [{ path: "out.txt", content: "x" }],
      collect: ["out.txt"],
    });
    const types = events.map((event) => event.type);
    assert.ok(types.includes("failover") && types.includes("retry"), types.join(", "));
    assert.ok(
      events.every((event) => event.runId === result.runId),
      "every event names the run",
    );
  });

  test("a run that acquired no sandbox ends with acquire-failed, carrying its run id and the error", async () => {
    const runtime = new RecordingRuntime().fail({ method: "launch", error: refused, times: 20 });
    const events: OrchestratorEvent[] = [];
    const orchestrator = new SandboxOrchestrator(runtime, {
      retry: fastRetry,
      launchAttempts: 1,
      onEvent: (event) => events.push(event),
    });
    const failure = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "hi"] }] }).then(
      () => assert.fail("expected a rejection"),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof WorkloadError);
    const last = events.at(-1);
    assert.equal(last?.type, "acquire-failed");
    assert.equal(last.runId, failure.result.runId);
    assert.equal(last.error.code, "RATE_LIMITED");
    assert.ok(events.every((event) => event.runId === failure.result.runId));
  });

  test("a session's events carry its run id; one that never opened ends with acquire-failed", async () => {
    const runtime = new RecordingRuntime();
    const events: OrchestratorEvent[] = [];
    const orchestrator = new SandboxOrchestrator(runtime, {
      retry: fastRetry,
      launchAttempts: 1,
      onEvent: (event) => events.push(event),
    });
    {
      await using session = await orchestrator.session({});
      await session.exec({ argv: ["echo", "hi"] });
    }
    const opened = events.map((event) => [event.type, event.runId]);
    assert.deepEqual(
      opened.map(([type]) => type),
      ["launched", "destroyed", "usage"],
    );
    const sessionRun = opened[0]?.[1];
    assert.ok(opened.every(([, runId]) => runId === sessionRun));

    events.length = 0;
    runtime.fail({ method: "launch", error: refused, times: 20 });
    await assert.rejects(orchestrator.session({}), (error) => SandportError.hasCode(error, "RATE_LIMITED"));
    assert.equal(events.at(-1)?.type, "acquire-failed");
    assert.notEqual(events.at(-1)?.runId, sessionRun, "a new session, a new run");
  });
});

describe("run ids on limiter events", () => {
  test("a limiter under the orchestrator names the run of each call; a call no run made names none", async () => {
    const runtime = new RecordingRuntime();
    const limiterEvents: LimiterEvent[] = [];
    // The system clock: the queued launch waits for its slot, the rate limit 5 ms.
    const limited = limitRuntime(runtime, { maxLaunchesInFlight: 1, onEvent: (event) => limiterEvents.push(event) });
    const orchestrator = new SandboxOrchestrator(limited, { retry: fastRetry });
    runtime.fail({ method: "launch", error: rateLimited(5) });
    const [first, second] = await Promise.all([
      orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "one"] }] }),
      orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "two"] }] }),
    ]);
    const runs = new Set([first.runId, second.runId]);
    const byRun = (runId: string) => limiterEvents.filter((event) => event.runId === runId).map((event) => event.type);
    assert.ok(limiterEvents.every((event) => event.runId !== undefined && runs.has(event.runId)));
    // Each run's launch was admitted under its own id; the one rate-limited was waited out under its own.
    for (const runId of runs) assert.equal(byRun(runId).filter((type) => type === "admitted").length, 1);
    const limitedOnes = limiterEvents.filter((event) => event.type === "rate-limited");
    assert.equal(limitedOnes.length, 1);
    assert.ok(byRun(limitedOnes[0]?.runId as string).includes("admitted"));

    limiterEvents.length = 0;
    const handle = await limited.launch({});
    await limited.destroy(handle);
    assert.deepEqual(
      limiterEvents.map((event) => [event.type, event.runId]),
      [["admitted", undefined]],
    );
  });

  test("a session's calls through a limiter carry the session's run id", async () => {
    const runtime = new RecordingRuntime();
    const limiterEvents: LimiterEvent[] = [];
    const limited = limitRuntime(runtime, { clock: new InstantClock(), onEvent: (event) => limiterEvents.push(event) });
    const orchestrator = new SandboxOrchestrator(limited, { retry: fastRetry });
    await using session = await orchestrator.session({});
    limiterEvents.length = 0;
    runtime.fail({ method: "readFile", error: rateLimited(5) });
    await session.writeFiles([{ path: "a.txt", content: "a" }]);
    await session.readFile("a.txt");
    assert.deepEqual(limiterEvents, [
      {
        type: "rate-limited",
        operation: "readFile",
        attempt: 1,
        retryAfterMs: 5,
        retrying: true,
        runId: session.runId,
      },
    ]);
  });
});
