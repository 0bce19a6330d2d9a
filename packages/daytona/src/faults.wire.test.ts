// Faults injected by the Daytona emulator, seen through the real SDK (newest
// and oldest) and DaytonaRuntime: what is safe to repeat is retried, the rest
// surfaces as typed errors, a lost create is reconciled, a sandbox that fails
// its probe on start is replaced, and after every test nothing of ours is left
// alive. Foreign sandboxes are never listed, reattached, used or destroyed.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL, SandboxOrchestrator } from "@sandport/core";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import { type DaytonaEmulator, startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulatorOptions, SDKS } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";
import type { DaytonaHandle } from "./handle.js";

const OWNER = "fault-tests";
const CREATE = "POST /api/sandbox";
const LIST = "GET /api/sandbox";
const DELETE = "DELETE /api/sandbox/:id";
const EXECUTE = "POST /toolbox/:id/process/execute";
const SESSION_EXEC = "POST /toolbox/:id/process/session/:sessionId/exec";

for (const sdk of SDKS) {
  describe(`DaytonaRuntime under injected faults (${sdk.label} → Daytona emulator)`, () => {
    let emulator: DaytonaEmulator;
    let runtime: DaytonaRuntime;
    let foreign: string[] = [];
    const fast = { retry: { initialDelayMs: 20, maxDelayMs: 200, jitter: "none" as const } };

    before(async () => {
      emulator = await startDaytonaEmulator({ pageSize: 2 });
      runtime = new DaytonaRuntime({ ...emulatorOptions(emulator, sdk), owner: OWNER });
      foreign = [
        await emulator.seedForeignSandbox({ pool: "shared", [OWNER_LABEL]: "someone-else" }),
        await emulator.seedForeignSandbox({ pool: "shared" }),
      ];
    });

    afterEach(async () => {
      emulator.clearFaults();
      assert.deepEqual(await runtime.settle(), [], "background work failed");
      const live = emulator.liveSandboxes().filter((sandbox) => sandbox.state !== "destroying");
      assert.deepEqual(
        live.filter((sandbox) => !sandbox.foreign),
        [],
        "sandboxes of ours are still alive",
      );
      assert.deepEqual(live.map((sandbox) => sandbox.id).sort(), [...foreign].sort(), "foreign sandboxes were touched");
    });

    after(() => emulator.stop());

    test("429 on create is retried (nothing was created), then typed RATE_LIMITED; the orchestrator retries it", async () => {
      emulator.resetRequests();
      emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 }, times: 3 });
      const error = await expectCode(runtime.launch(), "RATE_LIMITED");
      assert.equal(error.retryable, true);
      assert.equal(emulator.countRequests(CREATE), 3, "a try and two retries");
      emulator.resetRequests();
      emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 }, times: 4 });
      const result = await new SandboxOrchestrator(runtime, fast).run({ launch: {}, steps: [{ argv: ["true"] }] });
      assert.equal(result.ok, true);
      assert.equal(emulator.countRequests(CREATE), 5);
    });

    test("5xx on create: a 503 is a refusal, retried; a 500 is reconciled by the orchestrator, then launched again", async () => {
      emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 503 }, times: 3 });
      const refused = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
      assert.deepEqual([refused.retryable, refused.details.outcomeUnknown], [true, false]);
      emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 503 } });
      await runtime.destroy(await runtime.launch());
      emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 500 } });
      const events: string[] = [];
      const orchestrator = new SandboxOrchestrator(runtime, { ...fast, onEvent: (event) => events.push(event.type) });
      const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });
      assert.equal(result.ok, true);
      assert.ok(events.includes("launch-reconciled"));
    });

    test("a create whose response is lost is reconciled by its launch key: the orphan is destroyed", async () => {
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
      const launched: DaytonaHandle[] = [];
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

    test("429 and 503 on a command start are retried (nothing ran); a dropped start is a typed unknown outcome", async () => {
      const handle = await runtime.launch();
      try {
        emulator.injectFault({ route: EXECUTE, fault: { kind: "status", status: 503 } });
        emulator.injectFault({ route: EXECUTE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 } });
        assert.equal((await runtime.exec(handle, { shell: "echo ran >> runs.txt" })).exitCode, 0);
        assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "runs.txt")), "ran\n", "ran exactly once");
        emulator.injectFault({ route: EXECUTE, fault: { kind: "drop" }, times: 3 });
        const dropped = await expectCode(runtime.exec(handle, { argv: ["true"] }), "PROVIDER_UNAVAILABLE");
        assert.deepEqual([dropped.retryable, dropped.details.outcomeUnknown], [false, true]);
      } finally {
        emulator.clearFaults();
        await runtime.destroy(handle);
      }
    });

    test("a startCommand whose response is lost is reconciled by its session id: one run", async () => {
      const handle = await runtime.launch();
      try {
        emulator.injectFault({ route: SESSION_EXEC, fault: { kind: "lost-response" } });
        const request = { sessionId: "lost-start", shell: "echo ran >> runs.txt" };
        await expectCode(runtime.startCommand(handle, request), "PROVIDER_UNAVAILABLE");
        const ref = await runtime.startCommand(handle, request);
        await waitFor(async () => (await runtime.commandStatus(handle, ref)).state === "exited");
        assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "runs.txt")), "ran\n");
      } finally {
        await runtime.destroy(handle);
      }
    });

    test("5xx on delete is typed and retried within the call; the orchestrator's teardown retries what is left", async () => {
      const handle = await runtime.launch();
      emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 502 }, times: 6 });
      const error = await expectCode(runtime.destroy(handle), "PROVIDER_UNAVAILABLE");
      assert.equal(error.retryable, true);
      emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 500 }, times: 6 });
      const result = await new SandboxOrchestrator(runtime, fast).run({ launch: { reuse: { id: handle.id } } });
      assert.equal(result.teardown.outcome, "destroyed");
    });

    test("a sandbox whose toolbox fails the probe on start is replaced through the real SDK; the old one is deleted", async () => {
      const handle = await runtime.launch({ labels: { case: "recovery" }, env: { KEPT: "yes" } });
      const old = handle.id;
      await runtime.stop(handle);
      emulator.injectFault({ route: EXECUTE, fault: { kind: "status", status: 502 }, times: 3 });
      await runtime.start(handle);
      assert.notEqual(handle.id, old, "the handle names the replacement");
      assert.ok(!emulator.liveSandboxes().some((sandbox) => sandbox.id === old && sandbox.state !== "destroying"));
      assert.equal((await runtime.exec(handle, { shell: 'echo "$KEPT"' })).stdout, "yes\n", "launched the same way");
      assert.deepEqual(
        (await runtime.findByLabels({ case: "recovery" })).map((found) => found.id),
        [handle.id],
      );
      emulator.injectFault({ route: EXECUTE, fault: { kind: "status", status: 502 }, times: 3 });
      const strict = new DaytonaRuntime({
        ...emulatorOptions(emulator, sdk),
        owner: OWNER,
        recreateOnFailedStart: false,
      });
      await expectCode(strict.start(handle), "PROVIDER_UNAVAILABLE");
      await runtime.destroy(handle);
    });

    test("foreign sandboxes are never listed, reattached, used or destroyed", async () => {
      emulator.resetRequests();
      assert.deepEqual(await runtime.findByLabels({ pool: "shared" }), []);
      for (const id of foreign) {
        const handle = { id, provider: "daytona" as const, labels: {} };
        await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
        await expectCode(runtime.destroy(handle), "FOREIGN_SANDBOX");
        await expectCode(runtime.exec(handle, { argv: ["true"] }), "FOREIGN_SANDBOX");
        await expectCode(runtime.start(handle), "FOREIGN_SANDBOX");
      }
      assert.equal(emulator.countRequests(/DELETE|toolbox|\/start|\/stop/), 0, "never deleted, started or used");
    });
  });
}
