import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { providerDown, RecordingRuntime } from "@sandport/testkit/fakes";
import { ERROR_CODES } from "../errors/error-code.js";
import { SandportError } from "../errors/sandport-error.js";
import type { OrchestratorEvent } from "./events.js";
import type { OrchestratorOptions } from "./options.js";
import { SandboxOrchestrator } from "./sandbox-orchestrator.js";
import type { Workload } from "./workload.js";
import { WorkloadError } from "./workload-error.js";

const fastRetry = { initialDelayMs: 1, jitter: "none", budgetMs: 2_000 } as const;

function setup(options: OrchestratorOptions = {}) {
  const runtime = new RecordingRuntime();
  const events: OrchestratorEvent[] = [];
  const orchestrator = new SandboxOrchestrator(runtime, {
    retry: fastRetry,
    onEvent: (event) => events.push(event),
    ...options,
  });
  const calls = (method: string) => runtime.calls.filter((call) => call.method === method).length;
  return { runtime, orchestrator, events, calls };
}

const workload: Workload = {
  launch: { labels: { job: "t" } },
  files: [{ path: "app/in.txt", content: "hello" }],
  steps: [
    { name: "greet", argv: ["echo", "hi"] },
    { name: "report", argv: ["write", "app/report.json", "{}"] },
  ],
  collect: ["app/report.json", "app/in.txt"],
};

async function rejectsWith(promise: Promise<unknown>, check: (error: WorkloadError) => void): Promise<WorkloadError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WorkloadError, `expected WorkloadError, got ${String(error)}`);
    check(error);
    return error;
  }
  assert.fail("expected a rejection");
}

describe("SandboxOrchestrator.run", () => {
  test("runs launch → files → steps → collect → destroy and reports it", async () => {
    const { runtime, orchestrator, events } = setup();
    const result = await orchestrator.run(workload);
    assert.equal(result.ok, true);
    assert.deepEqual(
      result.steps.map((step) => [step.name, step.result.exitCode, step.result.stdout]),
      [
        ["greet", 0, "hi\n"],
        ["report", 0, ""],
      ],
    );
    assert.equal(new TextDecoder().decode(result.collected["app/report.json"]), "{}");
    assert.equal(new TextDecoder().decode(result.collected["app/in.txt"]), "hello");
    assert.equal(result.teardown.outcome, "destroyed");
    assert.equal(result.handle, undefined);
    assert.equal(runtime.sandboxes.size, 0);
    assert.deepEqual(
      events.map((event) => event.type),
      [
        "launched",
        "files-written",
        "step-started",
        "step-output",
        "step-exited",
        "step-started",
        "step-exited",
        "collected",
        "collected",
        "destroyed",
        "usage",
      ],
    );
    for (const key of ["launchMs", "filesMs", "stepsMs", "collectMs", "teardownMs", "totalMs"] as const) {
      assert.ok(result.timings[key] >= 0, key);
    }
    assert.ok(result.steps.every((step) => step.durationMs >= 0 && !Number.isNaN(Date.parse(step.startedAt))));
  });

  test("a failing step stops the rest, still collects, tears down and resolves ok: false", async () => {
    const { runtime, orchestrator } = setup();
    const result = await orchestrator.run({
      launch: {},
      files: [{ path: "report.txt", content: "partial" }],
      steps: [{ argv: ["exit", "3"] }, { argv: ["echo", "never"] }],
      collect: ["report.txt"],
    });
    assert.equal(result.ok, false);
    assert.equal(result.steps.length, 1);
    assert.equal(result.steps[0]?.result.exitCode, 3);
    assert.ok(result.collected["report.txt"]);
    assert.equal(result.teardown.outcome, "destroyed");
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("continueOnFailure runs the next step but the workload is not ok", async () => {
    const { orchestrator } = setup();
    const result = await orchestrator.run({
      launch: {},
      steps: [{ argv: ["exit", "1"], continueOnFailure: true }, { argv: ["echo", "after"] }],
    });
    assert.equal(result.steps.length, 2);
    assert.equal(result.ok, false);
  });

  test("a step that throws fails the workload after teardown; steps are never retried", async () => {
    const { runtime, orchestrator, calls } = setup();
    runtime.fail({ method: "exec", error: providerDown });
    await rejectsWith(orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "x"] }] }), (error) => {
      assert.equal(error.stage, "step");
      assert.equal(error.code, "PROVIDER_UNAVAILABLE");
      assert.equal(error.result.teardown.outcome, "destroyed");
    });
    assert.equal(calls("exec"), 1);
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("abort during a step rejects ABORTED promptly and still tears down", async () => {
    const { runtime, orchestrator } = setup();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user pressed stop")), 30);
    const started = Date.now();
    await rejectsWith(
      orchestrator.run({ launch: {}, steps: [{ argv: ["sleep", "5000"] }] }, { signal: controller.signal }),
      (error) => {
        assert.equal(error.code, "ABORTED");
        assert.equal(error.stage, "step");
        assert.equal(error.result.teardown.outcome, "destroyed");
      },
    );
    assert.ok(Date.now() - started < 2_000);
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("a failing collect fails the workload with NOT_FOUND, after teardown, keeping the step results", async () => {
    const { runtime, orchestrator } = setup();
    await rejectsWith(
      orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "x"] }], collect: ["missing.json"] }),
      (error) => {
        assert.equal(error.stage, "collect");
        assert.equal(error.code, "NOT_FOUND");
        assert.equal(error.result.steps.length, 1);
        assert.equal(error.result.teardown.outcome, "destroyed");
      },
    );
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("a teardown failure is reported, with everything collected kept", async () => {
    const { runtime, orchestrator, events } = setup({ retry: { ...fastRetry, maxAttempts: 2 } });
    runtime.fail({ method: "destroy", error: providerDown, times: 2 });
    const error = await rejectsWith(orchestrator.run(workload), (failure) => {
      assert.equal(failure.stage, "teardown");
      assert.equal(failure.code, "PROVIDER_UNAVAILABLE");
      assert.equal(failure.result.teardown.outcome, "failed");
      assert.equal(failure.result.ok, true);
    });
    assert.ok(error.result.collected["app/report.json"]);
    assert.ok(events.some((event) => event.type === "teardown-failed"));
    assert.equal(runtime.sandboxes.size, 1);
  });

  test("a transient destroy failure is retried", async () => {
    const { runtime, orchestrator, calls } = setup();
    runtime.fail({ method: "destroy", error: providerDown });
    const result = await orchestrator.run({ launch: {} });
    assert.equal(result.teardown.outcome, "destroyed");
    assert.equal(calls("destroy"), 2);
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("reads are retried on retryable errors, not on others", async () => {
    const { runtime, orchestrator, calls } = setup();
    runtime.fail({ method: "readFile", error: providerDown });
    await orchestrator.run({ launch: {}, files: [{ path: "a", content: "1" }], collect: ["a"] });
    assert.equal(calls("readFile"), 2);

    const again = setup();
    again.runtime.fail({ method: "readFile", error: () => new SandportError({ code: "AUTH", message: "401" }) });
    await rejectsWith(
      again.orchestrator.run({ launch: {}, files: [{ path: "a", content: "1" }], collect: ["a"] }),
      (e) => assert.equal(e.code, "AUTH"),
    );
    assert.equal(again.calls("readFile"), 1);
  });

  test("teardown policies: on-success keeps a failed sandbox, keep keeps any", async () => {
    const { runtime, orchestrator } = setup();
    const failed = await orchestrator.run({ launch: {}, steps: [{ argv: ["exit", "2"] }], teardown: "on-success" });
    assert.equal(failed.teardown.outcome, "kept");
    assert.equal(failed.handle?.id, failed.sandboxId);
    const passed = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "x"] }], teardown: "on-success" });
    assert.equal(passed.teardown.outcome, "destroyed");
    const kept = await orchestrator.run({ launch: {}, teardown: "keep" });
    assert.equal(kept.teardown.outcome, "kept");
    assert.deepEqual([...runtime.sandboxes.keys()].sort(), [failed.sandboxId, kept.sandboxId].sort());
  });

  test("a malformed workload is refused before any provider call", async () => {
    const { runtime, orchestrator } = setup();
    const malformed: unknown[] = [
      { launch: {}, files: [{ path: "../escape", content: "x" }] },
      { launch: {}, steps: [{ argv: [] }] },
      { launch: {}, steps: [{ argv: ["x"], timeoutMs: -1 }] },
      { launch: {}, steps: [{ argv: ["x"], env: { "NOT VALID": "1" } }] },
      { launch: {}, collect: ["/etc/passwd"] },
      { launch: { labels: { "sandport.owner": "me" } } },
      { launch: { reuse: {} } },
      { launch: {}, teardown: "sometimes" },
    ];
    for (const bad of malformed) {
      await rejectsWith(orchestrator.run(bad as Workload), (error) => {
        assert.equal(error.code, "INVALID_REQUEST", JSON.stringify(bad));
        assert.equal(error.stage, "validate");
        assert.ok(SandportError.hasCode(error.cause, "INVALID_REQUEST"));
        assert.equal(error.result.sandboxId, undefined);
        assert.equal(error.result.teardown.outcome, "none");
        assert.deepEqual(error.result.steps, []);
      });
    }
    assert.equal(runtime.calls.length, 0);
  });

  test("an unknown key anywhere in a workload is refused at the validate stage, naming it and the nearest key", async () => {
    const { runtime, orchestrator } = setup();
    const typos: [unknown, RegExp][] = [
      [{ launch: {}, stpes: [] }, /workload: unknown key "stpes" \(did you mean steps\?\)/],
      [
        { launch: {}, steps: [{ argv: ["true"], tiemoutMs: 5 }] },
        /steps\[0\]: unknown key "tiemoutMs" \(did you mean timeoutMs\?\)/,
      ],
      [{ launch: {}, steps: [{ argv: ["true"], continueOnFailur: true }] }, /did you mean continueOnFailure\?/],
      [{ launch: { lables: { a: "b" } } }, /launch spec: unknown key "lables" \(did you mean labels\?\)/],
      [{ launch: { reuse: { idd: "x" } } }, /reuse: unknown key "idd" \(did you mean id\?\)/],
      [{ launch: { reuse: { id: "x" }, lables: {} } }, /unknown key "lables"/],
      [
        { launch: {}, files: [{ path: "a", content: "", mdoe: 0o644 }] },
        /files\[0\]: unknown key "mdoe" \(did you mean mode\?\)/,
      ],
      [{ launch: {}, steps: [{ argv: ["true"], timeoutMs: "1000" }] }, /timeoutMs must be a number, got string "1000"/],
      [{ launch: {}, files: [{ path: "a", content: "", mode: 0o4755 }] }, /mode must be an integer from 0 to 0o777/],
    ];
    for (const [bad, pattern] of typos) {
      await rejectsWith(orchestrator.run(bad as Workload), (error) => {
        assert.equal(error.stage, "validate");
        assert.equal(error.code, "INVALID_REQUEST");
        assert.match(error.message, pattern);
      });
    }
    await rejectsWith(orchestrator.run({ launch: {} }, { signl: AbortSignal.timeout(1) } as never), (error) => {
      assert.equal(error.stage, "validate");
      assert.match(error.message, /run options: unknown key "signl" \(did you mean signal\?\)/);
    });
    await assert.rejects(
      orchestrator.session({}, { teardwn: "keep" } as never),
      (error: unknown) =>
        SandportError.hasCode(error, "INVALID_REQUEST") && /did you mean teardown\?/.test(error.message),
    );
    assert.equal(runtime.calls.length, 0);
  });

  test("the constructor refuses an unknown option, timeout or retry key (naming the nearest known one) and a retry policy out of range", () => {
    const runtime = new RecordingRuntime();
    const cases: [unknown, RegExp][] = [
      [{ retyr: {} }, /SandboxOrchestrator options: unknown key "retyr" \(did you mean retry\?\)/],
      [{ timeouts: { stepsMs: 5 } }, /timeouts: unknown key "stepsMs" \(did you mean stepMs\?\)/],
      [{ timeouts: { stepMs: "5" } }, /timeouts.stepMs must be a number, got string "5"/],
      [{ retry: { maxAtempts: 2 } }, /retry: unknown key "maxAtempts" \(did you mean maxAttempts\?\)/],
      [{ retry: { maxAttempts: 0 } }, /retry.maxAttempts must be a whole number ≥ 1, got 0/],
      [{ retry: { budgetMs: "100" } }, /retry.budgetMs must be a number, got string "100"/],
      [{ retry: { initialDelayMs: -1 } }, /retry.initialDelayMs must be a finite number of milliseconds ≥ 0/],
      [{ retry: { multiplier: 0.5 } }, /retry.multiplier must be a finite number ≥ 1, got 0.5/],
      [{ retry: { jitter: "half" } }, /retry.jitter must be "full" or "none", got "half"/],
      [{ retry: 3 }, /retry/],
    ];
    for (const [options, pattern] of cases) {
      assert.throws(
        () => new SandboxOrchestrator(runtime, options as OrchestratorOptions),
        (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST") && pattern.test(error.message),
        String(pattern),
      );
    }
    assert.equal(runtime.calls.length, 0);
  });

  test("reuses a sandbox by id or labels, and NOT_FOUND when there is none", async () => {
    const { runtime, orchestrator } = setup();
    const kept = await orchestrator.run({ launch: { labels: { pool: "warm" } }, teardown: "keep" });
    const byId = await orchestrator.run({ launch: { reuse: { id: kept.sandboxId as string } }, teardown: "keep" });
    assert.equal(byId.sandboxId, kept.sandboxId);
    assert.equal(byId.reused, true);
    const byLabels = await orchestrator.run({ launch: { reuse: { labels: { pool: "warm" } } } });
    assert.equal(byLabels.sandboxId, kept.sandboxId);
    assert.equal(runtime.sandboxes.size, 0);
    await rejectsWith(orchestrator.run({ launch: { reuse: { id: "mem-404" } } }), (error) => {
      assert.equal(error.code, "NOT_FOUND");
      assert.equal(error.result.teardown.outcome, "none");
    });
  });
});

describe("launch reconciliation", () => {
  test("a create whose response was lost is found by its launch key and destroyed, then launched afresh", async () => {
    const { runtime, orchestrator, events, calls } = setup();
    runtime.fail({ method: "launch", error: providerDown, afterWork: true });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "ok"] }] });
    assert.equal(result.ok, true);
    assert.equal(calls("launch"), 2);
    const reconciled = events.find((event) => event.type === "launch-reconciled");
    assert.ok(reconciled && reconciled.type === "launch-reconciled");
    assert.equal(reconciled.destroyed.length, 1);
    assert.notEqual(reconciled.destroyed[0], result.sandboxId);
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("with onUnknownLaunch: adopt, the orphan becomes the workload's sandbox", async () => {
    const { runtime, orchestrator, calls } = setup({ onUnknownLaunch: "adopt" });
    runtime.fail({ method: "launch", error: providerDown, afterWork: true });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "ok"] }] });
    assert.equal(result.ok, true);
    assert.equal(calls("launch"), 1);
    assert.equal(result.sandboxId, "rec-1");
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("a launch refused outright is neither reconciled nor retried", async () => {
    const { runtime, orchestrator, calls } = setup();
    runtime.fail({ method: "launch", error: () => new SandportError({ code: "AUTH", message: "401" }) });
    await rejectsWith(orchestrator.run({ launch: {} }), (error) => assert.equal(error.code, "AUTH"));
    assert.equal(calls("launch"), 1);
    assert.equal(calls("findByLabels"), 0);
  });

  test("a launch that never left (unreachable endpoint) is retried without a search, and reports no leak", async () => {
    const { runtime, orchestrator, calls } = setup();
    const unreachable = () =>
      new SandportError({
        code: "PROVIDER_UNAVAILABLE",
        message: "the endpoint is unreachable, nothing was sent",
        retryable: true,
        details: { sent: false },
      });
    runtime.fail({ method: "launch", error: unreachable, times: 2 });
    await rejectsWith(orchestrator.run({ launch: {} }), (error) => {
      assert.equal(error.code, "PROVIDER_UNAVAILABLE");
      assert.doesNotMatch(error.message, /may have leaked|outcome unknown/);
      assert.deepEqual(error.result.possibleLeaks, []);
    });
    assert.equal(calls("launch"), 2);
    assert.equal(calls("findByLabels"), 0);
  });

  test("a rate-limited launch is repeated after Retry-After", async () => {
    const { runtime, orchestrator, calls } = setup();
    runtime.fail({
      method: "launch",
      error: () => new SandportError({ code: "RATE_LIMITED", message: "429", retryAfterMs: 5 }),
    });
    const result = await orchestrator.run({ launch: {} });
    assert.equal(calls("launch"), 2);
    assert.equal(calls("findByLabels"), 0);
    assert.equal(result.teardown.outcome, "destroyed");
  });

  test("without findByLabels an unknown outcome is reported as a possible leak, not retried", async () => {
    const { runtime, orchestrator, calls } = setup();
    Object.assign(runtime, { findByLabels: undefined });
    runtime.fail({ method: "launch", error: providerDown, afterWork: true });
    await rejectsWith(orchestrator.run({ launch: {} }), (error) => {
      assert.equal(error.code, "PROVIDER_UNAVAILABLE");
      assert.match(error.message, /may have leaked/);
      assert.equal((error.cause as SandportError).details.possibleLeak, true);
    });
    assert.equal(calls("launch"), 1);
  });

  test("a custom reconcileLaunch hook is used", async () => {
    const seen: string[] = [];
    const { runtime, orchestrator } = setup({
      reconcileLaunch: async ({ launchKey }) => {
        seen.push(launchKey);
        return [...runtime.sandboxes.values()].map((sandbox) => ({
          id: sandbox.id,
          provider: "recording",
          labels: {},
        }));
      },
    });
    runtime.fail({ method: "launch", error: providerDown, afterWork: true });
    await orchestrator.run({ launch: {} });
    assert.equal(seen.length, 1);
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("an abort during a launch that landed still destroys the orphan", async () => {
    const { runtime, orchestrator, calls } = setup({ onUnknownLaunch: "adopt" });
    const controller = new AbortController();
    runtime.fail({
      method: "launch",
      afterWork: true,
      error: () => {
        controller.abort();
        return new SandportError({ code: "ABORTED", message: "aborted" });
      },
    });
    await rejectsWith(orchestrator.run({ launch: {} }, { signal: controller.signal }), (error) =>
      assert.equal(error.code, "ABORTED"),
    );
    assert.equal(calls("launch"), 1);
    assert.equal(runtime.sandboxes.size, 0);
  });
});

describe("SandboxOrchestrator.session", () => {
  test("await using destroys the sandbox on scope exit, also when the scope throws", async () => {
    const { runtime, orchestrator } = setup();
    let id = "";
    {
      await using session = await orchestrator.session({ labels: { kind: "session" } });
      id = session.id;
      const result = await session.exec({ argv: ["echo", "inside"] });
      assert.equal(result.stdout, "inside\n");
      assert.equal(runtime.sandboxes.has(id), true);
    }
    assert.equal(runtime.sandboxes.has(id), false);

    await assert.rejects(async () => {
      await using session = await orchestrator.session({});
      id = session.id;
      throw new Error("body failed");
    }, /body failed/);
    assert.equal(runtime.sandboxes.has(id), false);
  });

  test("teardown: keep leaves the sandbox; a failed dispose throws", async () => {
    const { runtime, orchestrator } = setup({ retry: { ...fastRetry, maxAttempts: 1 } });
    let keptId = "";
    {
      await using session = await orchestrator.session({}, { teardown: "keep" });
      keptId = session.id;
    }
    assert.equal(runtime.sandboxes.has(keptId), true);

    runtime.fail({ method: "destroy", error: providerDown });
    await assert.rejects(
      async () => {
        await using _session = await orchestrator.session({});
      },
      (error: unknown) => SandportError.hasCode(error, "PROVIDER_UNAVAILABLE"),
    );
  });

  test("destroy is idempotent within a session", async () => {
    const { orchestrator, calls } = setup();
    const session = await orchestrator.session({});
    await session.destroy();
    await session.destroy();
    await session[Symbol.asyncDispose]();
    assert.equal(calls("destroy"), 1);
  });
});

describe("a throwing onEvent listener", () => {
  for (const thrownOn of ["launched", "files-written", "step-exited", "collected", "destroyed"] as const) {
    test(`throwing on "${thrownOn}" neither loses the sandbox nor fails the workload; the error is reported`, async () => {
      const runtime = new RecordingRuntime();
      const orchestrator = new SandboxOrchestrator(runtime, {
        onEvent: (event) => {
          if (event.type === thrownOn) throw new Error(`listener bug on ${event.type}`);
        },
      });
      const result = await orchestrator.run(workload);
      assert.equal(result.ok, true);
      assert.equal(result.teardown.outcome, "destroyed");
      assert.equal(runtime.sandboxes.size, 0, "the sandbox was destroyed");
      assert.ok(result.listenerErrors.length > 0);
      for (const error of result.listenerErrors) {
        assert.ok(SandportError.isInstance(error));
        assert.equal(error.code, "UNEXPECTED");
        assert.equal(error.details.event, thrownOn);
        assert.match((error.cause as Error).message, /listener bug/);
      }
    });
  }

  test("a workload that fails for its own reason still carries a code from ERROR_CODES, and the listener's errors", async () => {
    const runtime = new RecordingRuntime();
    const orchestrator = new SandboxOrchestrator(runtime, {
      onEvent: () => {
        throw "not even an Error";
      },
    });
    const error = await rejectsWith(orchestrator.run({ ...workload, collect: ["missing.txt"] }), (failure) => {
      assert.equal(failure.code, "NOT_FOUND");
      assert.equal(failure.stage, "collect");
    });
    assert.ok(ERROR_CODES.includes(error.code));
    assert.equal(error.result.teardown.outcome, "destroyed");
    assert.equal(runtime.sandboxes.size, 0);
    assert.ok(error.result.listenerErrors.every((listenerError) => listenerError.code === "UNEXPECTED"));
  });

  test("sessions contain listener errors too", async () => {
    const runtime = new RecordingRuntime();
    const orchestrator = new SandboxOrchestrator(runtime, {
      onEvent: () => {
        throw new Error("listener bug");
      },
    });
    const session = await orchestrator.session({});
    await session.destroy();
    assert.equal(runtime.sandboxes.size, 0);
    assert.deepEqual(
      session.listenerErrors.map((error) => error.details.event),
      ["launched", "destroyed", "usage"],
    );
  });
});
