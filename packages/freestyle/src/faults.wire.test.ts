// Faults injected by the Freestyle emulator, seen through the real freestyle
// SDK (which retries nothing itself) and FreestyleRuntime: what is safe to
// repeat is retried, the rest surfaces as typed errors, a lost or abandoned
// create is reconciled, and after every test nothing of ours is left alive.
// Foreign VMs are never listed, reattached or destroyed.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL, SandboxOrchestrator } from "@sandport/core";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { type FreestyleEmulator, startFreestyleEmulator } from "@sandport/testkit/emulators/freestyle";
import { emulatorOptions, HOME } from "../test/emulated.js";
import { FreestyleRuntime } from "./freestyle-runtime.js";
import type { FreestyleHandle } from "./handle.js";

const OWNER = "fault-tests";
const CREATE = "POST /v5/vms";
const LIST = "GET /v5/vms";
const GET = "GET /v5/vms/:id";
const DELETE = "DELETE /v5/vms/:id";
const POLL = "GET /v5/background-requests/:requestId";

describe("FreestyleRuntime under injected faults (real freestyle SDK → Freestyle emulator)", () => {
  let emulator: FreestyleEmulator;
  let runtime: FreestyleRuntime;
  let foreign: string[] = [];
  const fast = { retry: { initialDelayMs: 20, maxDelayMs: 200, jitter: "none" as const } };

  before(async () => {
    emulator = await startFreestyleEmulator({ workspaceDirectory: HOME, pageSize: 2 });
    runtime = new FreestyleRuntime({ ...emulatorOptions(emulator), owner: OWNER });
    foreign = [
      await emulator.seedForeignSandbox({ pool: "shared", [OWNER_LABEL]: "someone-else" }),
      await emulator.seedForeignSandbox({ pool: "shared", [OWNER_LABEL]: OWNER }),
      await emulator.seedForeignSandbox({ pool: "shared" }),
    ];
  });

  afterEach(async () => {
    emulator.clearFaults();
    assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
    const live = emulator.liveSandboxes();
    assert.deepEqual(
      live.filter((vm) => !vm.foreign),
      [],
      "VMs of ours are still alive",
    );
    assert.deepEqual(live.map((vm) => vm.id).sort(), [...foreign].sort(), "foreign VMs were touched");
  });

  after(() => emulator.stop());

  test("429 on create is typed RATE_LIMITED (the SDK retries nothing); the orchestrator retries it", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 } });
    const error = await expectCode(runtime.launch(), "RATE_LIMITED");
    assert.equal(error.retryable, true);
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 } });
    const result = await new SandboxOrchestrator(runtime, fast).run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.equal(emulator.countRequests(CREATE), 2);
  });

  test("5xx on create: typed PROVIDER_UNAVAILABLE; the orchestrator reconciles, then launches again", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 503 } });
    const refused = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
    assert.deepEqual([refused.retryable, refused.details.outcomeUnknown], [true, false]);
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 500 } });
    const events: string[] = [];
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, onEvent: (event) => events.push(event.type) });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.ok(events.includes("launch-reconciled"));
  });

  test("a create whose response is lost is reconciled by launch key: the orphan is found and destroyed", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    const lost = await expectCode(runtime.launch({ labels: { case: "lost" } }), "PROVIDER_UNAVAILABLE");
    assert.equal(lost.details.outcomeUnknown, true);
    const orphans = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: lost.details.launchKey as string });
    assert.equal(orphans.length, 1, "the lost create did make a VM");
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

  test("429 and 5xx on list pages are retried (reads); a lasting failure is typed", async () => {
    const launched: FreestyleHandle[] = [];
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

  test("5xx on delete is typed and retryable; the orchestrator's teardown retries it", async () => {
    const handle = await runtime.launch();
    emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 502 } });
    const error = await expectCode(runtime.destroy(handle), "PROVIDER_UNAVAILABLE");
    assert.equal(error.retryable, true);
    emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 500 } });
    const result = await new SandboxOrchestrator(runtime, fast).run({ launch: { reuse: { id: handle.id } } });
    assert.equal(result.teardown.outcome, "destroyed");
  });

  test("foreign VMs are never listed, reattached, used or destroyed", async () => {
    emulator.resetRequests();
    assert.deepEqual(await runtime.findByLabels({ pool: "shared" }), []);
    for (const id of foreign) {
      await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
      await expectCode(runtime.destroy({ id, provider: "freestyle", labels: {} }), "FOREIGN_SANDBOX");
      await expectCode(runtime.exec({ id, provider: "freestyle", labels: {} }, { argv: ["true"] }), "FOREIGN_SANDBOX");
    }
    assert.equal(emulator.countRequests(/DELETE|exec-await|fs\/|start|pause/), 0, "never used, woken or deleted");
  });
});

describe("FreestyleRuntime when every request is backgrounded at once (the SDK polls each after 2 s)", () => {
  let emulator: FreestyleEmulator;
  let runtime: FreestyleRuntime;

  before(async () => {
    emulator = await startFreestyleEmulator({ workspaceDirectory: HOME, backgroundAfterMs: 0 });
    runtime = new FreestyleRuntime({ ...emulatorOptions(emulator), owner: OWNER });
  });

  afterEach(async () => {
    emulator.clearFaults();
    assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
    assert.deepEqual(emulator.liveSandboxes(), [], "VMs are still alive");
  });

  after(() => emulator.stop());

  /** Lookups by slug (`sandport-<hash>`), as the cleanup of an abandoned launch makes them. */
  const slugLookups = () =>
    emulator.requests.filter(
      (request) => request.route === GET && /^\/v5\/vms\/sandport-[0-9a-f]{32}$/.test(request.path),
    ).length;

  test("a launch whose deadline passed while the create was polled: the create is followed, then destroyed", async () => {
    emulator.resetRequests();
    await expectCode(runtime.launch({ labels: { case: "deadline" } }, { timeoutMs: 300 }), "DEADLINE_EXCEEDED");
    assert.deepEqual(await runtime.settle(), []);
    assert.equal(emulator.countRequests(DELETE), 1, "destroyed by the id the create answered");
    assert.equal(slugLookups(), 0, "no search was needed");
  });

  test("a launch abandoned before its create's answer was lost: the VM is found by its slug and destroyed", async () => {
    emulator.injectFault({ route: POLL, fault: { kind: "status", status: 500 } });
    emulator.resetRequests();
    await expectCode(runtime.launch({ labels: { case: "lost-poll" } }, { timeoutMs: 300 }), "DEADLINE_EXCEEDED");
    assert.deepEqual(await runtime.settle(), []);
    assert.equal(slugLookups(), 1, "looked for the VM by the slug its launch key gives");
    assert.equal(emulator.countRequests(DELETE), 1, "and destroyed it");
  });
});
