// Failover through the orchestrator, on real runtimes: local runtimes over separate roots (each sees
// only its own sandboxes), the first wrapped by a thin double (failing-launches.fixture.ts) that
// injects the launch failure a provider gives, or is itself a real runtime that lacks a capability.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type LocalTestRuntime, localTestRuntime } from "@sandport/testkit/fakes";
import { SandportError } from "../../errors/sandport-error.js";
import type { OrchestratorEvent } from "../../orchestrator/events.js";
import type { OrchestratorOptions } from "../../orchestrator/options.js";
import { SandboxOrchestrator } from "../../orchestrator/sandbox-orchestrator.js";
import type { Workload } from "../../orchestrator/workload.js";
import { WorkloadError } from "../../orchestrator/workload-error.js";
import type { SandboxHandle } from "../../port/sandbox-handle.js";
import type { SandboxRuntime } from "../../port/sandbox-runtime.js";
import { failingLaunches, type LaunchFault } from "./failing-launches.fixture.js";

let first: LocalTestRuntime;
let second: LocalTestRuntime;
before(async () => {
  first = await localTestRuntime("failover-first");
  second = await localTestRuntime("failover-second");
});
after(async () => {
  await first?.cleanup();
  await second?.cleanup();
});

const workload: Workload = {
  launch: { labels: { job: "failover" } },
  files: [{ path: "in.txt", content: "hello" }],
  steps: [{ name: "read", shell: "cat in.txt && printf done > out.txt" }],
  collect: ["out.txt"],
};

/** Every sandbox still on a runtime. */
async function remaining(runtime: SandboxRuntime): Promise<readonly SandboxHandle[]> {
  return (await runtime.findByLabels?.({})) ?? [];
}

function orchestrate(runtimes: readonly SandboxRuntime[], options: OrchestratorOptions = {}) {
  const events: OrchestratorEvent[] = [];
  const orchestrator = new SandboxOrchestrator(runtimes, {
    onEvent: (event) => events.push(event),
    retry: { initialDelayMs: 1, jitter: "none", budgetMs: 2_000 },
    ...options,
  });
  const types = () => events.map((event) => event.type);
  return { orchestrator, events, types };
}

async function rejection(promise: Promise<unknown>): Promise<WorkloadError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WorkloadError, `expected a WorkloadError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected a rejection");
}

describe("a launch that fails before any sandbox exists moves to the next runtime", () => {
  const cases: readonly LaunchFault[] = [
    { code: "RATE_LIMITED", how: "refused" },
    { code: "PROVIDER_UNAVAILABLE", how: "unsent" },
    { code: "DEADLINE_EXCEEDED", how: "unanswered" },
    { code: "PROVIDER_UNAVAILABLE", how: "unanswered" },
  ];
  for (const fault of cases) {
    test(`${fault.code} (${fault.how}): at once, and everything after runs on the runtime that launched`, async () => {
      const failing = failingLaunches(first.runtime, [fault]);
      const { orchestrator, events, types } = orchestrate([failing.runtime, second.runtime]);
      const result = await orchestrator.run(workload);
      assert.equal(result.ok, true);
      assert.equal(result.steps[0]?.result.stdout, "hello");
      assert.equal(new TextDecoder().decode(result.collected["out.txt"]), "done");
      assert.deepEqual(result.runtime, { index: 1, provider: "local" });
      assert.equal(failing.launches.length, 1, "not tried again on the runtime that failed");
      const moved = events.find((event) => event.type === "failover");
      assert.ok(moved?.type === "failover");
      assert.deepEqual(
        [moved.from, moved.to, moved.code],
        [{ index: 0, provider: "local" }, result.runtime, fault.code],
      );
      assert.equal(moved.error.code, fault.code);
      const launched = events.find((event) => event.type === "launched");
      assert.ok(launched?.type === "launched");
      assert.deepEqual(launched.runtime, result.runtime);
      assert.ok(types().indexOf("failover") < types().indexOf("launched"));
      assert.equal(result.usage?.runtime.index, 1);
      assert.deepEqual(await remaining(first.runtime), []);
      assert.deepEqual(await remaining(second.runtime), []);
    });
  }

  test("a lost launch is reconciled on its runtime (its real sandbox destroyed) before it moves", async () => {
    const failing = failingLaunches(first.runtime, [{ code: "DEADLINE_EXCEEDED", how: "lost" }]);
    const { orchestrator, events, types } = orchestrate([failing.runtime, second.runtime]);
    const result = await orchestrator.run(workload);
    assert.equal(result.ok, true);
    assert.equal(result.runtime?.index, 1);
    assert.equal(failing.lostSandboxes.length, 1);
    const reconciled = events.find((event) => event.type === "launch-reconciled");
    assert.ok(reconciled?.type === "launch-reconciled");
    assert.deepEqual(reconciled.destroyed, failing.lostSandboxes);
    assert.equal(reconciled.launchKey, failing.launches[0]);
    assert.ok(types().indexOf("launch-reconciled") < types().indexOf("failover"), types().join(", "));
    assert.deepEqual(await remaining(first.runtime), []);
  });

  test("a launch its runtime cleans up in the background moves once that cleanup destroyed what it made", async () => {
    const failing = failingLaunches(first.runtime, [{ code: "DEADLINE_EXCEEDED", how: "reclaimed" }]);
    const { orchestrator, events, types } = orchestrate([failing.runtime, second.runtime]);
    const result = await orchestrator.run(workload);
    assert.equal(result.runtime?.index, 1);
    assert.deepEqual(result.possibleLeaks, []);
    const reconciled = events.filter((event) => event.type === "launch-reconciled");
    assert.equal(reconciled.length, 1, "reported once, before the move, not again at the end");
    assert.ok(reconciled[0]?.type === "launch-reconciled");
    assert.deepEqual(reconciled[0].destroyed, failing.lostSandboxes);
    assert.equal(failing.lostSandboxes.length, 1);
    assert.ok(types().indexOf("launch-reconciled") < types().indexOf("failover"), types().join(", "));
    assert.deepEqual(await remaining(first.runtime), []);
  });

  test("the last runtime keeps a single runtime's retries: a rate limit there is waited out", async () => {
    const failing = failingLaunches(first.runtime, [{ code: "RATE_LIMITED", how: "refused" }]);
    const last = failingLaunches(second.runtime, [{ code: "RATE_LIMITED", how: "refused" }]);
    const { orchestrator, types } = orchestrate([failing.runtime, last.runtime]);
    const result = await orchestrator.run(workload);
    assert.equal(result.runtime?.index, 1);
    assert.deepEqual([failing.launches.length, last.launches.length], [1, 2]);
    assert.deepEqual(
      types().filter((type) => type === "failover"),
      ["failover"],
    );
  });

  test("a session's calls all go to the runtime that launched its sandbox", async () => {
    const failing = failingLaunches(first.runtime, [{ code: "PROVIDER_UNAVAILABLE", how: "unsent" }]);
    const { orchestrator, events } = orchestrate([failing.runtime, second.runtime]);
    const session = await orchestrator.session({});
    try {
      assert.equal(session.runtime, second.runtime);
      assert.deepEqual(session.placement, { index: 1, provider: "local" });
      await session.writeFiles([{ path: "note.txt", content: "here" }]);
      assert.equal((await session.exec({ shell: "cat note.txt" })).stdout, "here");
      assert.notEqual(await second.runtime.getById(session.id), undefined);
      assert.equal(await first.runtime.getById(session.id), undefined, "the first runtime never saw it");
    } finally {
      await session.destroy();
    }
    assert.ok(events.some((event) => event.type === "failover"));
    assert.deepEqual(await remaining(second.runtime), []);
  });
});

describe("a workload that has (or may have) a sandbox never moves", () => {
  test("a lost launch adopted on reconciliation stays on its runtime", async () => {
    const failing = failingLaunches(first.runtime, [{ code: "DEADLINE_EXCEEDED", how: "lost" }]);
    const other = failingLaunches(second.runtime, []);
    const { orchestrator, types } = orchestrate([failing.runtime, other.runtime], { onUnknownLaunch: "adopt" });
    const result = await orchestrator.run(workload);
    assert.equal(result.ok, true);
    assert.equal(result.runtime?.index, 0);
    assert.equal(result.sandboxId, failing.lostSandboxes[0]);
    assert.ok(!types().includes("failover"));
    assert.deepEqual(other.launches, []);
  });

  test("a launch whose search for what it left failed does not move: a sandbox may exist", async () => {
    const failing = failingLaunches(first.runtime, [{ code: "PROVIDER_UNAVAILABLE", how: "unanswered" }]);
    const other = failingLaunches(second.runtime, []);
    const { orchestrator, types } = orchestrate([failing.runtime, other.runtime], {
      reconcileLaunch: async () => {
        throw new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "local", message: "listing down" });
      },
    });
    const error = await rejection(orchestrator.run(workload));
    assert.equal(error.stage, "launch");
    assert.equal(error.details.possibleLeak, true);
    assert.equal(error.result.runtime, undefined);
    assert.ok(!types().includes("failover"));
    assert.deepEqual(other.launches, []);
  });

  test("a launch whose background cleanup failed does not move, and its possible leak is reported", async () => {
    const failing = failingLaunches(first.runtime, [{ code: "DEADLINE_EXCEEDED", how: "unreclaimable" }]);
    const other = failingLaunches(second.runtime, []);
    const { orchestrator, types } = orchestrate([failing.runtime, other.runtime]);
    try {
      const error = await rejection(orchestrator.run(workload));
      assert.equal(error.stage, "launch");
      assert.equal(error.details.possibleLeak, true);
      assert.deepEqual(
        error.result.possibleLeaks.map((leak) => leak.launchKey),
        [failing.launches[0]],
      );
      assert.ok(!types().includes("failover"));
      assert.deepEqual(other.launches, []);
      await failing.background.settle();
      assert.equal(failing.lostSandboxes.length, 1, "the sandbox the create made is still there");
    } finally {
      for (const handle of await first.runtime.findByLabels({})) await first.runtime.destroy(handle);
    }
  });

  test("a failure after the launch (a file write) fails the workload where it is", async () => {
    const flaky = new Proxy(first.runtime, {
      get(target, key) {
        if (key === "writeFiles") {
          return async () => {
            throw new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "local", message: "injected" });
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const other = failingLaunches(second.runtime, []);
    const { orchestrator, types } = orchestrate([flaky, other.runtime], { retry: { maxAttempts: 1 } });
    const error = await rejection(orchestrator.run(workload));
    assert.equal(error.stage, "files");
    assert.equal(error.code, "PROVIDER_UNAVAILABLE");
    assert.equal(error.result.runtime?.index, 0);
    assert.equal(error.result.teardown.outcome, "destroyed");
    assert.ok(!types().includes("failover"));
    assert.deepEqual(other.launches, []);
  });

  test("a code the policy leaves out does not move: that runtime's own retry runs", async () => {
    const failing = failingLaunches(first.runtime, [{ code: "PROVIDER_UNAVAILABLE", how: "unsent" }]);
    const other = failingLaunches(second.runtime, []);
    const { orchestrator, types } = orchestrate([failing.runtime, other.runtime], {
      failover: { on: ["RATE_LIMITED"] },
    });
    const result = await orchestrator.run(workload);
    assert.equal(result.runtime?.index, 0);
    assert.equal(failing.launches.length, 2);
    assert.ok(!types().includes("failover"));
    assert.deepEqual(other.launches, []);
  });
});

describe("a launch moves only to a runtime with every capability the workload uses", () => {
  test("a runtime that cannot enforce the network policy is passed over, and the event says what it lacks", async (t) => {
    if (first.namespacesOnly) return t.skip(first.namespacesOnly);
    const plain = await localTestRuntime("failover-plain", { isolation: "none" });
    try {
      const failing = failingLaunches(first.runtime, [{ code: "RATE_LIMITED", how: "refused" }]);
      const unfit = failingLaunches(plain.runtime, []);
      const { orchestrator, events } = orchestrate([failing.runtime, unfit.runtime, second.runtime]);
      const result = await orchestrator.run({ ...workload, launch: { network: "none" } });
      assert.equal(result.runtime?.index, 2);
      assert.deepEqual(unfit.launches, []);
      const skipped = events.find((event) => event.type === "runtime-skipped");
      assert.ok(skipped?.type === "runtime-skipped");
      assert.deepEqual(skipped.runtime, { index: 1, provider: "local" });
      assert.deepEqual(skipped.missing, [{ capability: "networkPolicy", because: 'launch.network "none"' }]);
      const moved = events.find((event) => event.type === "failover");
      assert.ok(moved?.type === "failover");
      assert.deepEqual([moved.from.index, moved.to.index], [0, 2]);
    } finally {
      await plain.cleanup();
    }
  });

  test("with no runtime left that can run it, the launch fails where it is and the events say why", async () => {
    const plain = await localTestRuntime("failover-plain", { isolation: "none" });
    try {
      const failing = failingLaunches(first.runtime, [
        { code: "PROVIDER_UNAVAILABLE", how: "unsent" },
        { code: "PROVIDER_UNAVAILABLE", how: "unsent" },
      ]);
      const unfit = failingLaunches(plain.runtime, []);
      const { orchestrator, events } = orchestrate([failing.runtime, unfit.runtime]);
      const error = await rejection(orchestrator.run({ ...workload, launch: { network: "none" } }));
      assert.equal(error.code, "PROVIDER_UNAVAILABLE");
      assert.equal(failing.launches.length, 2, "the only runtime that can run it keeps its own retry");
      assert.deepEqual(unfit.launches, []);
      assert.deepEqual(
        events
          .filter((event) => event.type === "runtime-skipped")
          .map((event) => event.type === "runtime-skipped" && event.runtime.index),
        [1],
      );
    } finally {
      await plain.cleanup();
    }
  });

  test("a session's requires are capabilities too", async () => {
    const failing = failingLaunches(first.runtime, [
      { code: "RATE_LIMITED", how: "refused" },
      { code: "RATE_LIMITED", how: "refused" },
    ]);
    const { orchestrator, events } = orchestrate([failing.runtime, second.runtime]);
    await assert.rejects(orchestrator.session({}, { requires: ["detachedLaunch"] }), { code: "RATE_LIMITED" });
    const skipped = events.find((event) => event.type === "runtime-skipped");
    assert.ok(skipped?.type === "runtime-skipped");
    assert.deepEqual(skipped.missing, [{ capability: "detachedLaunch", because: "requires" }]);
    await assert.rejects(orchestrator.session({}, { requires: ["teleport" as never] }), { code: "INVALID_REQUEST" });
  });
});

describe("the runtime list", () => {
  test("a single runtime is the list of one, and the result names it", async () => {
    const orchestrator = new SandboxOrchestrator(second.runtime);
    assert.deepEqual(orchestrator.runtimes, [second.runtime]);
    const result = await orchestrator.run(workload);
    assert.deepEqual(result.runtime, { index: 0, provider: "local" });
  });

  test("an empty list and a malformed policy are refused", () => {
    assert.throws(() => new SandboxOrchestrator([]), { code: "INVALID_REQUEST" });
    assert.throws(() => new SandboxOrchestrator(second.runtime, { failover: { on: ["NOT_FOUND" as never] } }), {
      code: "INVALID_REQUEST",
    });
    assert.throws(() => new SandboxOrchestrator(second.runtime, { failover: { of: [] } as never }), {
      code: "INVALID_REQUEST",
    });
  });
});
