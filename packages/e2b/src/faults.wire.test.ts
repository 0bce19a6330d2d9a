// Faults injected by the E2B emulator, seen through the real e2b SDK and
// E2BRuntime: what is safe to repeat is retried, the rest surfaces as typed
// errors, a lost create is reconciled, and after every test nothing of ours is
// left alive. Foreign sandboxes are never listed, reattached or destroyed.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL, SandboxOrchestrator } from "@sandport/core";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { E2BRuntime } from "./e2b-runtime.js";
import type { E2BHandle } from "./handle.js";

type Emulator = Awaited<ReturnType<typeof startE2BEmulator>>;

const OWNER = "fault-tests";
const CREATE = "POST /v2/sandboxes";
const LIST = "GET /v2/sandboxes";
const START = "rpc process.Process/Start";

describe("E2BRuntime under injected faults (real e2b SDK → E2B emulator)", () => {
  let emulator: Emulator;
  let runtime: E2BRuntime;
  let foreign: string[] = [];
  const fast = { retry: { initialDelayMs: 20, maxDelayMs: 200, jitter: "none" as const } };

  before(async () => {
    emulator = await startE2BEmulator({ pageSize: 2 });
    runtime = new E2BRuntime({
      apiKey: emulator.apiKey,
      apiUrl: emulator.apiUrl,
      sandboxUrl: emulator.sandboxUrl,
      domain: emulator.domain,
      owner: OWNER,
    });
    foreign = [
      await emulator.seedForeignSandbox({ pool: "shared", [OWNER_LABEL]: "someone-else" }),
      await emulator.seedForeignSandbox({ pool: "shared" }),
    ];
  });

  afterEach(async () => {
    emulator.clearFaults();
    assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
    const live = emulator.liveSandboxes();
    const ours = live.filter((sandbox) => !sandbox.foreign);
    assert.deepEqual(ours, [], "sandboxes of ours are still alive");
    assert.deepEqual(live.map((sandbox) => sandbox.id).sort(), [...foreign].sort(), "foreign sandboxes were touched");
  });

  after(() => emulator.stop());

  test("429 on create: the SDK honours Retry-After, then RATE_LIMITED is typed; the orchestrator retries", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 }, times: 4 });
    const error = await expectCode(runtime.launch(), "RATE_LIMITED");
    assert.equal(error.retryable, true);
    assert.equal(emulator.countRequests(CREATE), 4, "one try and the SDK's 3 retries");
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 }, times: 5 });
    const result = await new SandboxOrchestrator(runtime, fast).run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.equal(emulator.countRequests(CREATE), 6);
  });

  test("5xx on create: typed PROVIDER_UNAVAILABLE; the orchestrator reconciles, then launches again", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 503 } });
    const refused = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
    assert.equal(refused.retryable, true);
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 500 } });
    const events: string[] = [];
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, onEvent: (event) => events.push(event.type) });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.ok(events.includes("launch-reconciled"));
  });

  test("a create whose response is lost is reconciled by the orchestrator: the orphan is destroyed", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    const lost = await expectCode(runtime.launch({ labels: { case: "lost" } }), "PROVIDER_UNAVAILABLE");
    assert.equal(lost.details.outcomeUnknown, true);
    const orphans = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: lost.details.launchKey as string });
    assert.equal(orphans.length, 1, "the lost create did make a sandbox");
    for (const orphan of orphans) await runtime.destroy(orphan);

    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    let destroyed: string[] = [];
    const orchestrator = new SandboxOrchestrator(runtime, {
      ...fast,
      onEvent: (event) => {
        if (event.type === "launch-reconciled") destroyed = [...event.destroyed];
      },
    });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.equal(destroyed.length, 1, "the orchestrator found the orphan by its launch key and destroyed it");
  });

  test("a launch aborted while the create is in flight leaves nothing behind", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 400 } });
    const controller = new AbortController();
    const launching = runtime.launch({ labels: { case: "aborted" } }, { signal: controller.signal });
    await delay(100);
    controller.abort(new Error("gave up"));
    await expectCode(launching, "ABORTED");
    assert.deepEqual(await runtime.settle(), []);
  });

  test("429 and 5xx on list pages are retried (reads); a persistent failure is typed", async () => {
    const launched: E2BHandle[] = [];
    for (let index = 0; index < 3; index++) launched.push(await runtime.launch({ labels: { pool: "shared" } }));
    emulator.resetRequests();
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 503 } });
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 429 } });
    const found = await runtime.findByLabels({ pool: "shared" });
    assert.deepEqual(found.map((handle) => handle.id).sort(), launched.map((handle) => handle.id).sort());
    assert.equal(emulator.countRequests(LIST), 4, "two pages, each refused once");
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 500 }, times: 3 });
    await expectCode(runtime.findByLabels({ pool: "shared" }), "PROVIDER_UNAVAILABLE");
    for (const handle of launched) await runtime.destroy(handle);
  });

  test("429 and 5xx on a command start are retried (nothing ran); drops surface as typed unknown outcomes", async () => {
    const handle = await runtime.launch();
    try {
      emulator.injectFault({ route: START, fault: { kind: "status", status: 503 } });
      emulator.injectFault({ route: START, fault: { kind: "status", status: 429 } });
      const result = await runtime.exec(handle, { shell: "echo ran >> runs.txt" });
      assert.equal(result.exitCode, 0);
      assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "runs.txt")), "ran\n", "ran exactly once");

      emulator.injectFault({ route: START, fault: { kind: "drop" } });
      const dropped = await expectCode(runtime.exec(handle, { argv: ["true"] }), "PROVIDER_UNAVAILABLE");
      assert.equal(dropped.retryable, false);

      emulator.injectFault({ route: START, fault: { kind: "drop-mid-stream", afterEvents: 2 } });
      const cut = await expectCode(
        runtime.exec(handle, { shell: "echo first; sleep 0.2; echo second >> cut.txt" }),
        "PROVIDER_UNAVAILABLE",
      );
      assert.equal(cut.details.outcomeUnknown, true);
      await delay(400);
      await expectCode(runtime.readFile(handle, "cut.txt"), "NOT_FOUND");
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("a startCommand whose response is lost is reconciled by its session id: one run", async () => {
    const handle = await runtime.launch();
    try {
      emulator.injectFault({ route: START, fault: { kind: "lost-response" } });
      const request = { sessionId: "lost-start", shell: "echo ran >> runs.txt" };
      await expectCode(runtime.startCommand(handle, request), "PROVIDER_UNAVAILABLE");
      const ref = await runtime.startCommand(handle, request);
      while ((await runtime.commandStatus(handle, ref)).state === "running") await delay(30);
      assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "runs.txt")), "ran\n");
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("5xx on delete is typed and retryable; the orchestrator's teardown retries it", async () => {
    const handle = await runtime.launch();
    emulator.injectFault({ route: "DELETE /sandboxes/:id", fault: { kind: "status", status: 502 } });
    const error = await expectCode(runtime.destroy(handle), "PROVIDER_UNAVAILABLE");
    assert.equal(error.retryable, true);
    emulator.injectFault({ route: "DELETE /sandboxes/:id", fault: { kind: "status", status: 500 } });
    const result = await new SandboxOrchestrator(runtime, fast).run({ launch: { reuse: { id: handle.id } } });
    assert.equal(result.teardown.outcome, "destroyed");
  });

  test("foreign sandboxes are never listed, reattached or destroyed", async () => {
    emulator.resetRequests();
    assert.deepEqual(await runtime.findByLabels({ pool: "shared" }), []);
    for (const id of foreign) {
      await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
      await expectCode(runtime.destroy({ id, provider: "e2b", labels: {} }), "FOREIGN_SANDBOX");
      await expectCode(runtime.exec({ id, provider: "e2b", labels: {} }, { argv: ["true"] }), "FOREIGN_SANDBOX");
    }
    assert.equal(emulator.countRequests(/connect|DELETE|rpc /), 0, "never connected to (resumed), used or deleted");
  });
});
