// Faults injected by the Vercel emulator, seen through the real @vercel/sandbox SDK and
// VercelSandboxRuntime: what is safe to repeat is retried (by the SDK: twice, from 400 ms),
// what is not ends with a typed error saying its outcome is unknown, a lost create is
// reconciled, and after every test nothing of ours is alive and foreign sandboxes are untouched.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL, SandboxOrchestrator } from "@sandport/core";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import { startVercelEmulator, type VercelEmulator } from "@sandport/testkit/emulators/vercel";
import { Sandbox } from "@vercel/sandbox";
import { emulatorOptions } from "../test/emulated.js";
import type { VercelSandboxHandle } from "./handle.js";
import { VercelSandboxRuntime } from "./vercel-sandbox-runtime.js";

const OWNER = "fault-tests";
const CREATE = "POST /v3/sandboxes";
const LIST = "GET /v2/sandboxes";
const DELETE = "DELETE /v2/sandboxes/:name";
const CMD = "POST /v2/sandboxes/sessions/:sessionId/cmd";

describe("VercelSandboxRuntime under injected faults (real @vercel/sandbox → Vercel emulator)", () => {
  let emulator: VercelEmulator;
  let runtime: VercelSandboxRuntime;
  let foreign: string[] = [];
  const fast = { retry: { initialDelayMs: 20, maxDelayMs: 200, jitter: "none" as const } };
  const text = async (handle: VercelSandboxHandle, path: string) =>
    new TextDecoder().decode(await runtime.readFile(handle, path));
  /** Runs `work` in a fresh sandbox, destroyed afterwards whatever happens. */
  const inSandbox = async (work: (handle: VercelSandboxHandle) => Promise<void>) => {
    const handle = await runtime.launch();
    try {
      await work(handle);
    } finally {
      await runtime.destroy(handle);
    }
  };

  before(async () => {
    emulator = await startVercelEmulator();
    runtime = new VercelSandboxRuntime({ ...emulatorOptions(emulator), owner: OWNER });
    foreign = [
      await emulator.seedForeignSandbox({ pool: "shared", [OWNER_LABEL]: OWNER }),
      (await Sandbox.create({ ...emulator.sdkOptions, name: `sandport-${OWNER}-lookalike`, tags: { pool: "shared" } }))
        .name,
    ];
  });

  afterEach(async () => {
    emulator.clearFaults();
    assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
    const live = emulator.liveSandboxes().map((sandbox) => sandbox.id);
    assert.deepEqual(live.sort(), [...foreign].sort(), "only the foreign sandboxes are alive, untouched");
  });

  after(() => emulator.stop());

  test("429 on create: the SDK waits out Retry-After twice, then RATE_LIMITED; the orchestrator retries", async () => {
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 }, times: 3 });
    const error = await expectCode(runtime.launch(), "RATE_LIMITED");
    assert.equal(error.retryable, true);
    assert.equal(emulator.countRequests(CREATE), 3, "one try and the SDK's 2 retries");
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 }, times: 3 });
    const result = await new SandboxOrchestrator(runtime, fast).run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
  });

  test("5xx on create: a 503 refused it; a 500 may have made it, and the orchestrator reconciles", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 503 }, times: 3 });
    const refused = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
    assert.equal(refused.details.outcomeUnknown, false, "a 503 says the request was refused");
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 500 }, times: 3 });
    const events: string[] = [];
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, onEvent: (event) => events.push(event.type) });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.ok(events.includes("launch-reconciled"));
  });

  test("a create whose answer is lost is not repeated: its outcome is unknown, the orphan found by launch key", async () => {
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    const lost = await expectCode(runtime.launch({ labels: { case: "lost" } }), "PROVIDER_UNAVAILABLE");
    assert.equal(emulator.countRequests(CREATE), 1, "the SDK did not send it again");
    assert.equal(lost.details.outcomeUnknown, true);
    assert.equal(lost.retryable, true, "safe to launch again once the launch key is searched");
    const orphans = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: lost.details.launchKey as string });
    assert.equal(orphans.length, 1, "the lost create did make a sandbox");
    assert.deepEqual(orphans[0]?.labels, { case: "lost" });
    await runtime.destroy(orphans[0] as never);

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

  test("a dropped create connection is not repeated either; a launch key already taken is an unknown outcome", async () => {
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "drop" } });
    const dropped = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
    assert.equal(emulator.countRequests(CREATE), 1);
    assert.equal(dropped.details.outcomeUnknown, true);
    const first = await runtime.launch({ launchKey: "taken" });
    const taken = await expectCode(runtime.launch({ launchKey: "taken" }), "PROVIDER_UNAVAILABLE");
    assert.equal(taken.details.outcomeUnknown, true);
    assert.match(taken.message, /search launch key taken/);
    await runtime.destroy(first);
  });

  test("429 and 5xx on list pages are retried (reads); a persistent failure is typed", async () => {
    const launched = [
      await runtime.launch({ labels: { pool: "shared" } }),
      await runtime.launch({ labels: { pool: "shared" } }),
    ];
    emulator.resetRequests();
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 503 } });
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 429, retryAfterSeconds: 0 } });
    const found = await runtime.findByLabels({ pool: "shared" });
    assert.deepEqual(found.map((handle) => handle.id).sort(), launched.map((handle) => handle.id).sort());
    assert.equal(emulator.countRequests(LIST), 3, "one page, refused twice and answered by the SDK's retries");
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 500 }, times: 9 });
    await expectCode(runtime.findByLabels({ pool: "shared" }), "PROVIDER_UNAVAILABLE");
    for (const handle of launched) await runtime.destroy(handle);
  });

  test("a command start that was refused is retried by the SDK (nothing ran); a dropped one is not", async () => {
    await inSandbox(async (handle) => {
      emulator.injectFault({ route: CMD, fault: { kind: "status", status: 503 } });
      assert.equal((await runtime.exec(handle, { shell: "echo ran >> runs.txt" })).exitCode, 0);
      assert.equal(await text(handle, "runs.txt"), "ran\n", "ran exactly once");
      emulator.resetRequests();
      emulator.injectFault({ route: CMD, fault: { kind: "lost-response" } });
      const lost = await expectCode(runtime.exec(handle, { shell: "echo ran >> runs.txt" }), "PROVIDER_UNAVAILABLE");
      assert.equal(lost.retryable, false);
      assert.equal(lost.details.outcomeUnknown, true);
      // It ran (the response only was lost): its output shows exactly one more run.
      await waitFor(async () => (await text(handle, "runs.txt")) === "ran\nran\n", { what: "the lost start to run" });
    });
  });

  test("a command stream cut mid-way is an unknown outcome, and the command is stopped", async () => {
    await inSandbox(async (handle) => {
      emulator.injectFault({ route: CMD, fault: { kind: "drop-mid-stream", afterEvents: 2 } });
      const cut = await expectCode(
        runtime.exec(handle, { shell: "echo first; sleep 0.5; echo second > cut.txt" }),
        "PROVIDER_UNAVAILABLE",
      );
      assert.equal(cut.details.outcomeUnknown, true);
      await delay(800);
      await expectCode(runtime.readFile(handle, "cut.txt"), "NOT_FOUND");
    });
  });

  test("a startCommand whose claim answer is lost asks again; one whose start answer is lost is never run twice", async () => {
    await inSandbox(async (handle) => {
      emulator.injectFault({ route: CMD, fault: { kind: "lost-response" } });
      const ref = await runtime.startCommand(handle, { sessionId: "lost-claim", shell: "echo ran >> claim.txt" });
      await waitFor(async () => ((await runtime.commandStatus(handle, ref)).state === "exited" ? true : undefined));
      assert.equal(await text(handle, "claim.txt"), "ran\n");

      const request = { sessionId: "lost-start", shell: "echo ran >> start.txt" };
      emulator.resetRequests();
      // The claim is the first command of a start, the start itself the second: lose the second's answer.
      emulator.injectFault({ route: CMD, fault: { kind: "latency", ms: 0 } });
      emulator.injectFault({ route: CMD, fault: { kind: "lost-response" } });
      const lost = await expectCode(runtime.startCommand(handle, request), "PROVIDER_UNAVAILABLE");
      assert.equal(lost.details.outcomeUnknown, true);
      assert.equal(emulator.countRequests(CMD), 2, "the claim, then the start, not sent again");
      const refused = await expectCode(runtime.startCommand(handle, request), "UNEXPECTED");
      assert.match(refused.message, /use another session id/);
      // It ran once: the start was sent once (counted above), and its output shows one run.
      await waitFor(async () => (await text(handle, "start.txt")) === "ran\n", { what: "the lost start to run" });
    });
  });

  test("5xx on delete is typed and retryable; the orchestrator's teardown retries it", async () => {
    const handle = await runtime.launch();
    emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 502 }, times: 3 });
    const error = await expectCode(runtime.destroy(handle), "PROVIDER_UNAVAILABLE");
    assert.equal(error.retryable, true);
    emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 500 }, times: 3 });
    const result = await new SandboxOrchestrator(runtime, fast).run({ launch: { reuse: { id: handle.id } } });
    assert.equal(result.teardown.outcome, "destroyed");
  });

  test("a delete whose answer is lost is repeated by the SDK: its 404 counts as gone", async () => {
    const handle = await runtime.launch();
    emulator.resetRequests();
    emulator.injectFault({ route: DELETE, fault: { kind: "lost-response" } });
    await runtime.destroy(handle);
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [`${DELETE} 0`, `${DELETE} 404`, `${LIST} 200`],
    );
  });

  test("foreign sandboxes are never listed, reattached, used or destroyed", async () => {
    emulator.resetRequests();
    assert.deepEqual(await runtime.findByLabels({ pool: "shared" }), []);
    for (const id of foreign) {
      const forged = { id, provider: "vercel" as const, labels: {} };
      await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
      await expectCode(runtime.destroy(forged), "FOREIGN_SANDBOX");
      await expectCode(runtime.exec(forged, { argv: ["true"] }), "FOREIGN_SANDBOX");
    }
    assert.equal(emulator.countRequests(/DELETE|cmd|:name/), 0, "never fetched (resumed), used or deleted");
  });
});
