// Faults injected by the microsandbox emulator, seen through the real SDK (which
// never retries) and MicrosandboxRuntime: reads are retried, the rest surfaces
// as typed errors, a lost create is reconciled by its launch key, a broken
// agent connection does not leave its command running, and after every test
// nothing of ours is left alive while foreign sandboxes are never touched.
import assert from "node:assert/strict";
import { afterEach, before, describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL, SandboxOrchestrator } from "@sandport/core";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const CREATE = "POST /v1/sandboxes";
const LIST = "GET /v1/sandboxes";
const BY_NAME = "GET /v1/sandboxes/by-name/:name";
const DELETE = "DELETE /v1/sandboxes/by-name/:name";
const AGENT = "GET /v1/sandboxes/:id/agent";

const { emulator, runtime } = await emulated({ owner: "fault-tests" }, { pageSize: 2 });
const fast = { retry: { initialDelayMs: 20, maxDelayMs: 200, jitter: "none" as const } };

describe("MicrosandboxRuntime under injected faults (real microsandbox SDK → emulator)", () => {
  let foreign: string[] = [];

  before(async () => {
    foreign = [
      await emulator.seedForeignSandbox({ pool: "shared", [OWNER_LABEL]: "someone-else" }),
      await emulator.seedForeignSandbox({ pool: "shared" }),
    ];
  });

  afterEach(async () => {
    emulator.clearFaults();
    assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
    const live = emulator.liveSandboxes();
    assert.deepEqual(
      live.filter((sandbox) => !sandbox.foreign),
      [],
      "sandboxes of ours are still alive",
    );
    assert.deepEqual(live.map((sandbox) => sandbox.id).sort(), [...foreign].sort(), "foreign sandboxes were touched");
  });

  test("429 on create is RATE_LIMITED (the SDK does not retry); the orchestrator retries it", async () => {
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 } });
    const error = await expectCode(runtime.launch(), "RATE_LIMITED");
    assert.deepEqual([error.retryable, error.details.outcomeUnknown], [true, false]);
    assert.equal(emulator.countRequests(CREATE), 1);
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 }, times: 2 });
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, launchAttempts: 3 });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.equal(emulator.countRequests(CREATE), 4, "one refusal alone, then two refusals and a create");
  });

  test("a 500 on create may have created a sandbox: the orchestrator reconciles by launch key, then launches", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 500 } });
    const refused = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
    assert.equal(refused.details.outcomeUnknown, true);
    assert.match(refused.message, /search launch key/);
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 502 } });
    const events: string[] = [];
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, onEvent: (event) => events.push(event.type) });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.ok(events.includes("launch-reconciled"));
  });

  test("a create whose response is lost is found by its launch key and destroyed", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    const lost = await expectCode(runtime.launch({ labels: { case: "lost" } }), "PROVIDER_UNAVAILABLE");
    assert.equal(lost.details.outcomeUnknown, true);
    const orphans = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: lost.details.launchKey as string });
    assert.equal(orphans.length, 1, "the lost create did make a sandbox");
    assert.deepEqual(orphans[0]?.labels, { case: "lost" });
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

  test("a launch abandoned while its create is in flight: the call rejects at once, the sandbox is destroyed after", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 400 } });
    const controller = new AbortController();
    const launching = runtime.launch({ labels: { case: "aborted" } }, { signal: controller.signal });
    await delay(100);
    const abortedAt = performance.now();
    controller.abort(new Error("gave up"));
    await expectCode(launching, "ABORTED");
    assert.ok(performance.now() - abortedAt < 200, "the call did not wait for the create");
    assert.deepEqual(await runtime.settle(), []);
    assert.equal(emulator.countRequests(DELETE) > 0, true, "what the create made was deleted");
  });

  test("list pages refused with 503 or 429 are retried (reads); a persistent failure is typed", async () => {
    const launched = await Promise.all([1, 2, 3].map(() => runtime.launch({ labels: { pool: "shared" } })));
    emulator.resetRequests();
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 503 } });
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 429 } });
    const found = await runtime.findByLabels({ pool: "shared" });
    assert.deepEqual(found.map((handle) => handle.id).sort(), launched.map((handle) => handle.id).sort());
    assert.equal(emulator.countRequests(LIST), 4, "two pages of two, the first asked for three times");
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 500 }, times: 3 });
    await expectCode(runtime.findByLabels({ pool: "shared" }), "PROVIDER_UNAVAILABLE");
    for (const handle of launched) await runtime.destroy(handle);
  });

  test("an agent handshake refused with 503 fails the call typed, and nothing ran", async () => {
    const handle = await runtime.launch();
    emulator.injectFault({ route: AGENT, fault: { kind: "status", status: 503 } });
    await expectCode(runtime.exec(handle, { shell: "echo ran > ran.txt" }), "PROVIDER_UNAVAILABLE");
    await expectCode(runtime.readFile(handle, "ran.txt"), "NOT_FOUND");
    await runtime.destroy(handle);
  });

  test("an agent connection cut while a command runs: PROVIDER_UNAVAILABLE, outcome unknown, and the command is stopped", async () => {
    const handle = await runtime.launch();
    emulator.injectFault({ route: AGENT, fault: { kind: "drop-mid-stream", afterEvents: 1 } });
    const error = await expectCode(
      runtime.exec(handle, { shell: "echo started; sleep 1; echo late > late.txt" }),
      "PROVIDER_UNAVAILABLE",
    );
    assert.equal(error.details.outcomeUnknown, true);
    await delay(1_500);
    await expectCode(runtime.readFile(handle, "late.txt"), "NOT_FOUND", "the command outlived its lost connection");
    await runtime.destroy(handle);
  });

  test("a delete refused with 503 rejects typed and leaves the sandbox; a lost delete response is proven gone", async () => {
    const handle = await runtime.launch();
    emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 503 } });
    await expectCode(runtime.destroy(handle), "PROVIDER_UNAVAILABLE");
    assert.equal((await runtime.getById(handle.id))?.id, handle.id, "still there, and still ours");
    emulator.injectFault({ route: DELETE, fault: { kind: "lost-response" } });
    await runtime.destroy(handle);
    assert.equal(await runtime.getById(handle.id), undefined);
  });

  test("a destroy that cannot be verified (every look after the delete fails) is DESTROY_UNVERIFIED, retryable", async () => {
    const handle = await runtime.launch();
    // The delete goes through, but every look for the sandbox afterwards fails: the deadline ends the wait.
    emulator.injectFault({ route: DELETE, fault: { kind: "latency", ms: 50 } });
    emulator.injectFault({ route: BY_NAME, fault: { kind: "status", status: 503 }, times: 100 });
    const error = await expectCode(runtime.destroy(handle, { timeoutMs: 1_500 }), "DESTROY_UNVERIFIED");
    assert.equal(error.retryable, true);
    emulator.clearFaults();
    await runtime.destroy(handle);
  });
});
