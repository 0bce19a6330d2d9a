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
    });
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
});
