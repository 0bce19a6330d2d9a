// A failed launch whose cleanup the runtime runs in the background: the workload waits for it, and
// what is unfinished or failed when the workload returns is reported as a possible leak.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { BackgroundTasks } from "../adapter/background-tasks.js";
import { launchFailure, reclaimAbandonedLaunch } from "../adapter/reclaim-launch.js";
import { toSandportError } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { LaunchSpec } from "../port/launch-spec.js";
import type { OpOptions } from "../port/op-options.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { OrchestratorEvent } from "./events.js";
import { SandboxOrchestrator } from "./sandbox-orchestrator.js";
import { WorkloadError } from "./workload-error.js";

/**
 * A runtime whose first `unansweredCreates` creates fail with an unknown outcome; like
 * every remote adapter, it then searches for their sandboxes in the
 * background through `search` (which the test controls).
 */
class ReclaimingRuntime extends RecordingRuntime {
  readonly background = new BackgroundTasks((error) => toSandportError(error, "fake"));
  readonly condemned = new Set<string>();
  readonly orphansDestroyed: string[] = [];
  unansweredCreates: number;
  readonly #search: (launchKey: string) => Promise<readonly string[]>;
  readonly #cleanupMs: number;

  constructor(
    unansweredCreates: number,
    search: (launchKey: string) => Promise<readonly string[]>,
    cleanupMs = 10_000,
  ) {
    super();
    this.unansweredCreates = unansweredCreates;
    this.#search = search;
    this.#cleanupMs = cleanupMs;
  }

  override launch(spec: LaunchSpec, op?: OpOptions): Promise<SandboxHandle> {
    if (this.unansweredCreates <= 0) return super.launch(spec, op);
    this.unansweredCreates -= 1;
    const launchKey = spec.launchKey as string;
    const lost = new Error("socket hang up");
    const mapped = new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "fake", message: "create failed" });
    const error = launchFailure(lost, mapped, launchKey, { outcomeUnknown: true });
    reclaimAbandonedLaunch({
      creation: Promise.reject(lost),
      idOf: () => "never",
      launchKey,
      error,
      created: false,
      destroy: async (sandboxId) => void this.orphansDestroyed.push(sandboxId),
      findByLaunchKey: this.#search,
      outcomeUnknown: () => true,
      condemned: this.condemned,
      background: this.background,
      cleanupMs: this.#cleanupMs,
      listingTrustedAfterMs: 100,
    });
    return Promise.reject(error);
  }
}

/**
 * A runtime whose first launch creates a sandbox, then fails its setup (a dropped agent connection), as
 * microsandbox's launch can; the cleanup's delete of that sandbox is refused (429) `refusals` times.
 */
class SetupFailingRuntime extends RecordingRuntime {
  readonly background = new BackgroundTasks((error) => toSandportError(error, "fake"));
  readonly deleteAttempts: string[] = [];
  readonly deleted: string[] = [];
  firstLaunchKey: string | undefined;
  readonly #refusals: number;
  readonly #cleanupMs: number;

  constructor(refusals: number, cleanupMs = 10_000) {
    super();
    this.#refusals = refusals;
    this.#cleanupMs = cleanupMs;
  }

  override launch(spec: LaunchSpec, op?: OpOptions): Promise<SandboxHandle> {
    if (this.firstLaunchKey !== undefined) return super.launch(spec, op);
    const launchKey = spec.launchKey as string;
    this.firstLaunchKey = launchKey;
    const error = new SandportError({
      code: "PROVIDER_UNAVAILABLE",
      provider: "fake",
      message: "the agent connection dropped while the workspace was made",
    });
    reclaimAbandonedLaunch({
      creation: Promise.resolve("sb-first"),
      idOf: (name) => name,
      launchKey,
      error,
      created: true,
      destroy: async (sandboxId) => {
        this.deleteAttempts.push(sandboxId);
        if (this.deleteAttempts.length <= this.#refusals) {
          throw new SandportError({ code: "RATE_LIMITED", provider: "fake", message: "429", retryAfterMs: 20 });
        }
        this.deleted.push(sandboxId);
      },
      findByLaunchKey: async () => [],
      outcomeUnknown: () => true,
      condemned: new Set(),
      background: this.background,
      cleanupMs: this.#cleanupMs,
    });
    return Promise.reject(error);
  }
}

/** A search that never answers until `release()`: the cleanup is still running whenever the test looks. */
function heldSearch() {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { search: async () => held.then(() => [] as string[]), release };
}

const fast = { retry: { initialDelayMs: 1, jitter: "none" as const } };

describe("possible leaks of failed launches", () => {
  test("a cleanup that finished before the workload returned leaves no possible leak", async () => {
    const runtime = new ReclaimingRuntime(1, async () => ["sb-orphan"]);
    const events: OrchestratorEvent[] = [];
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, onEvent: (event) => events.push(event) });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "hi"] }] });
    assert.equal(result.ok, true);
    assert.deepEqual(result.possibleLeaks, []);
    assert.deepEqual(runtime.orphansDestroyed, ["sb-orphan"], "the workload waited for the cleanup");
    const reconciled = events.find((event) => event.type === "launch-reconciled");
    assert.deepEqual(reconciled && { ...reconciled, launchKey: "" }, {
      type: "launch-reconciled",
      launchKey: "",
      adopted: undefined,
      destroyed: ["sb-orphan"],
      runId: result.runId,
    });
    // Reported before the run's usage, its last event.
    assert.deepEqual(
      events.slice(-2).map((event) => event.type),
      ["launch-reconciled", "usage"],
    );
  });

  test("a cleanup still running when the workload returns is on the result, by launch key", async () => {
    const { search, release } = heldSearch();
    const runtime = new ReclaimingRuntime(1, search);
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, timeouts: { reclaimMs: 20 } });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "hi"] }] });
    assert.equal(result.ok, true, "the relaunch succeeded");
    assert.equal(result.possibleLeaks.length, 1);
    const [leak] = result.possibleLeaks;
    assert.equal(typeof leak?.launchKey, "string");
    assert.deepEqual(leak?.error.details, { launchKey: leak?.launchKey, possibleLeak: true });
    assert.match(leak?.error.message ?? "", /may have leaked/);
    release();
    assert.deepEqual(await runtime.background.settle(), []);
  });

  test("a launch that fails for good with its cleanup failing: the WorkloadError says possibleLeak and the key", async () => {
    const runtime = new ReclaimingRuntime(1, async () => [], 50);
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, launchAttempts: 1 });
    try {
      await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "hi"] }] });
      assert.fail("expected a rejection");
    } catch (error) {
      assert.ok(error instanceof WorkloadError);
      assert.equal(error.stage, "launch");
      assert.equal(error.details.possibleLeak, true);
      const keys = error.result.possibleLeaks.map((leak) => leak.launchKey);
      assert.equal(keys.length, 1);
      assert.deepEqual(error.details.launchKeys, keys);
      assert.match(error.message, /may have leaked \(launch keys /);
    }
    const failures = await runtime.background.settle();
    assert.equal(failures[0]?.details.possibleLeak, true, "settle() reports it too");
  });

  test("after an abort the workload answers at once: the unfinished cleanup is reported, not waited for", async () => {
    const { search, release } = heldSearch();
    const runtime = new ReclaimingRuntime(1, search);
    const controller = new AbortController();
    const orchestrator = new SandboxOrchestrator(runtime, {
      ...fast,
      timeouts: { reclaimMs: 600_000 },
      onEvent: (event) => {
        if (event.type === "launched") controller.abort(new Error("enough"));
      },
    });
    await assert.rejects(
      orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "hi"] }] }, { signal: controller.signal }),
      (error: WorkloadError) => {
        assert.equal(error.details.possibleLeak, true);
        assert.equal(error.result.possibleLeaks.length, 1);
        return true;
      },
    );
    release();
    await runtime.background.settle();
  });

  test("a session whose launch failed with its cleanup unfinished says possibleLeak on its error", async () => {
    const { search, release } = heldSearch();
    const runtime = new ReclaimingRuntime(2, search);
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, timeouts: { reclaimMs: 20 } });
    await assert.rejects(orchestrator.session({}), (error: SandportError) => {
      assert.equal(error.code, "PROVIDER_UNAVAILABLE");
      assert.equal(error.details.possibleLeak, true);
      assert.equal((error.details.launchKeys as string[]).length, 2, "both attempts' keys");
      return true;
    });
    release();
    await runtime.background.settle();
  });

  test("a first launch whose setup failed and whose cleanup delete was refused: the delete is repeated before the workload returns", async () => {
    const runtime = new SetupFailingRuntime(2);
    const orchestrator = new SandboxOrchestrator(runtime, fast);
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "hi"] }] });
    assert.equal(result.ok, true, "the relaunch succeeded");
    assert.deepEqual(result.possibleLeaks, []);
    assert.deepEqual(runtime.deleted, ["sb-first"], "the first launch's sandbox is gone when the workload returns");
    assert.deepEqual(runtime.deleteAttempts, ["sb-first", "sb-first", "sb-first"]);
    assert.deepEqual(await runtime.background.settle(), []);
  });

  test("a first launch's cleanup that cannot delete within its budget is on the successful workload's result", async () => {
    const runtime = new SetupFailingRuntime(Number.POSITIVE_INFINITY, 600);
    const orchestrator = new SandboxOrchestrator(runtime, fast);
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["echo", "hi"] }] });
    assert.equal(result.ok, true, "the relaunch succeeded");
    assert.deepEqual(
      result.possibleLeaks.map((leak) => [leak.launchKey, leak.error.code, leak.error.details.possibleLeak]),
      [[runtime.firstLaunchKey, "RATE_LIMITED", true]],
    );
    assert.ok(runtime.deleteAttempts.length >= 2, "the delete was repeated within the budget");
    const failures = await runtime.background.settle();
    assert.equal(failures[0], result.possibleLeaks[0]?.error, "settle() reports the same failure");
  });
});
