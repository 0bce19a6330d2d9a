// Faults injected by the Daytona emulator, seen through the real SDK (newest
// and oldest) and DaytonaRuntime: the shared wire-fault suite (every error
// typed, no hang past a deadline, nothing left unreported), then what only
// Daytona does: a dropped start is an unknown outcome, a lost startCommand is
// reconciled by its session id, a sandbox that fails its probe on start is
// refused and replaced only by recreate, and after every test nothing of ours is left alive. Foreign
// sandboxes are never listed, reattached, used or destroyed.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { type DaytonaEmulator, startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { describeWireFaults } from "@sandport/testkit/faults";
import { emulatorOptions, SDKS } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";

const OWNER = "fault-tests";
const CREATE = "POST /api/sandbox";
const LIST = "GET /api/sandbox";
const DELETE = "DELETE /api/sandbox/:id";
const EXECUTE = "POST /toolbox/:id/process/execute";
const SESSION_EXEC = "POST /toolbox/:id/process/session/:sessionId/exec";
/** A session command's log: followed over a WebSocket (streamed output), or read whole. */
const SESSION_LOGS = "GET /toolbox/:id/process/session/:sessionId/command/:commandId/logs";

for (const sdk of SDKS) {
  describe(`DaytonaRuntime under injected faults (${sdk.label} → Daytona emulator)`, () => {
    let emulator: DaytonaEmulator;
    let runtime: DaytonaRuntime;
    let foreign: string[] = [];

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

    describeWireFaults({
      runtime: () => runtime,
      emulator: () => emulator,
      routes: { create: CREATE, list: LIST, delete: DELETE, exec: EXECUTE, stream: SESSION_LOGS },
      // The SDK repeats a 429 and a 503 twice; a 500 may have created the sandbox.
      attempts: { createRateLimited: 3, createUnavailable: 3, deleteRefused: 6 },
      outcomes: { execRetriedOn: [503, 429] },
      // Two pages of two, each refused once.
      listRequests: 4,
    });

    test("a dropped command start is retried by no one: a typed unknown outcome", async () => {
      const handle = await runtime.launch();
      try {
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

    test("start of a sandbox whose toolbox fails the probe rejects and keeps it; recreate replaces it through the real SDK", async () => {
      const handle = await runtime.launch({ labels: { case: "recovery" }, env: { KEPT: "yes" } });
      const old = handle.id;
      await runtime.stop(handle);
      emulator.injectFault({ route: EXECUTE, fault: { kind: "status", status: 502 }, times: 3 });
      emulator.resetRequests();
      const refused = await expectCode(runtime.start(handle), "PROVIDER_UNAVAILABLE");
      assert.match(refused.message, /recreate/, "the error names the explicit call");
      assert.equal(handle.id, old);
      assert.equal(emulator.countRequests(CREATE), 0, "start creates nothing");
      emulator.injectFault({ route: EXECUTE, fault: { kind: "status", status: 502 }, times: 3 });
      const replacement = await runtime.recreate(handle);
      assert.notEqual(replacement.id, old, "recreate resolves the replacement's handle");
      assert.equal(handle.id, old, "the caller's handle is left as it was");
      assert.ok(!emulator.liveSandboxes().some((sandbox) => sandbox.id === old && sandbox.state !== "destroying"));
      assert.equal(
        (await runtime.exec(replacement, { shell: 'echo "$KEPT"' })).stdout,
        "yes\n",
        "launched the same way",
      );
      assert.deepEqual(
        (await runtime.findByLabels({ case: "recovery" })).map((found) => found.id),
        [replacement.id],
      );
      await runtime.destroy(replacement);
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
