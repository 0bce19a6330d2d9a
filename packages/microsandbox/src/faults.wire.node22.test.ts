// Faults injected by the microsandbox emulator, seen through the real SDK (which
// never retries) and MicrosandboxRuntime: the shared wire-fault suite (every
// error typed, no hang past a deadline, nothing left unreported), then what
// only microsandbox does: an abandoned create is deleted, a broken agent
// connection does not leave its command running, a destroy is verified. After
// every test nothing of ours is left alive; foreign sandboxes are never touched.
import assert from "node:assert/strict";
import { afterEach, before, describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { describeWireFaults } from "@sandport/testkit/faults";
import { emulated } from "../test/emulated.js";

const CREATE = "POST /v1/sandboxes";
const LIST = "GET /v1/sandboxes";
const BY_NAME = "GET /v1/sandboxes/by-name/:name";
const DELETE = "DELETE /v1/sandboxes/by-name/:name";
const AGENT = "GET /v1/sandboxes/:id/agent";

const { emulator, runtime } = await emulated({ owner: "fault-tests" }, { pageSize: 2 });

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

  describeWireFaults({
    runtime: () => runtime,
    emulator: () => emulator,
    // Every command, streamed or not, runs and sends its output over the agent's WebSocket.
    routes: { create: CREATE, list: LIST, delete: DELETE, exec: AGENT, stream: AGENT },
    // Two pages of two, the first asked for three times.
    listRequests: 4,
  });

  test("a 500 on create may have created a sandbox: the error says to search its launch key", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 500 } });
    const refused = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
    assert.equal(refused.details.outcomeUnknown, true);
    assert.match(refused.message, /search launch key/);
  });

  test("a create whose response is lost: its orphan, found by launch key, carries the launch's labels", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    // The runtime searches by launch key too, and destroys what it finds in the background: its delete (and
    // this test's) is held, so the orphan is still there when this test looks, however the two searches interleave.
    emulator.injectFault({ route: DELETE, fault: { kind: "latency", ms: 3_000 }, times: 2 });
    const lost = await expectCode(runtime.launch({ labels: { case: "lost" } }), "PROVIDER_UNAVAILABLE");
    assert.equal(lost.details.outcomeUnknown, true);
    const orphans = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: lost.details.launchKey as string });
    assert.deepEqual(
      orphans.map((orphan) => orphan.labels),
      [{ case: "lost" }],
    );
    for (const orphan of orphans) await runtime.destroy(orphan);
  });

  test("a launch abandoned while its create is in flight: the call rejects at once, the sandbox is destroyed after", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 1_000 } });
    const controller = new AbortController();
    const launching = runtime.launch({ labels: { case: "aborted" } }, { signal: controller.signal });
    await delay(100);
    const abortedAt = performance.now();
    controller.abort(new Error("gave up"));
    await expectCode(launching, "ABORTED");
    assert.ok(performance.now() - abortedAt < 500, "the call did not wait for the create");
    assert.deepEqual(await runtime.settle(), []);
    assert.equal(emulator.countRequests(DELETE) > 0, true, "what the create made was deleted");
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
    // Room for the delete itself, which waits for the backend's destroy (seconds on a loaded machine); the rest
    // of the deadline is the verification window the faults use up.
    const error = await expectCode(runtime.destroy(handle, { timeoutMs: 4_000 }), "DESTROY_UNVERIFIED");
    assert.equal(error.retryable, true);
    emulator.clearFaults();
    await runtime.destroy(handle);
  });
});
