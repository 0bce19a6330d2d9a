// Faults injected by the Modal emulator, seen through the real modal SDK and
// ModalRuntime: what is safe to repeat is repeated (by the SDK or the
// adapter), the rest surfaces as typed errors, a lost create is reconciled,
// and after every test nothing of ours is left running. Foreign sandboxes are
// never listed, reattached or destroyed.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { OWNER_LABEL, SandboxOrchestrator } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type ModalEmulator, startModalEmulator } from "@sandport/testkit/emulators/modal";
import { emulatorOptions } from "../test/emulated.js";
import type { ModalHandle } from "./handle.js";
import { ModalRuntime } from "./modal-runtime.js";

const OWNER = "fault-tests";
const CONTROL = "rpc modal.client.ModalClient/";
const ROUTER = "rpc modal.task_command_router.TaskCommandRouter/";
const CREATE = `${CONTROL}SandboxCreateV2`;
const LIST = `${CONTROL}SandboxListV2`;
const TERMINATE = `${CONTROL}SandboxTerminateV2`;
const START = `${ROUTER}TaskExecStart`;

describe("ModalRuntime under injected faults (real modal SDK → Modal emulator)", () => {
  let emulator: ModalEmulator;
  let runtime: ModalRuntime;
  let foreign: string[] = [];
  const fast = { retry: { initialDelayMs: 20, maxDelayMs: 200, jitter: "none" as const } };

  before(async () => {
    emulator = await startModalEmulator({ pageSize: 2 });
    runtime = new ModalRuntime({ ...emulatorOptions(emulator), owner: OWNER });
    foreign = [
      await emulator.seedForeignSandbox({ pool: "shared", [OWNER_LABEL]: "someone-else" }, { appName: "sandport" }),
      await emulator.seedForeignSandbox({ pool: "shared" }, { appName: "sandport" }),
    ];
  });

  afterEach(async () => {
    emulator.clearFaults();
    assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
    const live = emulator.liveSandboxes();
    assert.deepEqual(
      live.filter((sandbox) => !sandbox.foreign),
      [],
      "sandboxes of ours are still running",
    );
    assert.deepEqual(live.map((sandbox) => sandbox.id).sort(), [...foreign].sort(), "foreign sandboxes were touched");
  });

  after(() => emulator.stop());

  test("429 on create: typed RATE_LIMITED, never repeated by the SDK; the orchestrator retries", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429 } });
    const error = await expectCode(runtime.launch(), "RATE_LIMITED");
    assert.equal(error.retryable, true);
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429 } });
    const result = await new SandboxOrchestrator(runtime, fast).run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.equal(emulator.countRequests(CREATE), 2);
  });

  test("5xx on create: typed PROVIDER_UNAVAILABLE, outcome unknown; the orchestrator reconciles, then launches", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 503 } });
    const refused = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
    assert.equal(refused.retryable, true);
    assert.equal(refused.details.outcomeUnknown, true, "gRPC UNAVAILABLE does not say whether the create ran");
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 500 } });
    const events: string[] = [];
    const orchestrator = new SandboxOrchestrator(runtime, { ...fast, onEvent: (event) => events.push(event.type) });
    const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });
    assert.equal(result.ok, true);
    assert.ok(events.includes("launch-reconciled"));
  });

  test("a create whose answer is lost: the orchestrator finds its sandbox by launch key and destroys it", async () => {
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
    assert.equal(destroyed.length, 1, "exactly the one sandbox the lost create made");
  });

  test("5xx and 429 on list pages are repeated (reads); a persistent failure is typed", async () => {
    const launched: ModalHandle[] = [];
    for (let index = 0; index < 3; index++) launched.push(await runtime.launch({ labels: { pool: "shared" } }));
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 503 } });
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 429 } });
    const found = await runtime.findByLabels({ pool: "shared" });
    assert.deepEqual(found.map((handle) => handle.id).sort(), launched.map((handle) => handle.id).sort());
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 500 }, times: 20 });
    await expectCode(runtime.findByLabels({ pool: "shared" }), "PROVIDER_UNAVAILABLE");
    emulator.clearFaults();
    for (const handle of launched) await runtime.destroy(handle);
  });

  test("a refused, dropped or unanswered exec start is repeated by the SDK with the same exec id: it runs once", async () => {
    const handle = await runtime.launch();
    try {
      emulator.injectFault({ route: START, fault: { kind: "status", status: 503 } });
      emulator.injectFault({ route: START, fault: { kind: "drop" } });
      emulator.injectFault({ route: START, fault: { kind: "lost-response" } });
      const result = await runtime.exec(handle, { shell: "echo ran >> runs.txt" });
      assert.equal(result.exitCode, 0);
      assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "runs.txt")), "ran\n", "ran exactly once");
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("an output stream cut mid-way is resumed at its offset: the output is whole and in order", async () => {
    const handle = await runtime.launch();
    try {
      emulator.injectFault({ route: `${ROUTER}TaskExecStdioRead`, fault: { kind: "drop-mid-stream", afterEvents: 1 } });
      const result = await runtime.exec(handle, { shell: "echo first; sleep 0.3; echo second; sleep 0.3; echo third" });
      assert.deepEqual([result.stdout, result.exitCode], ["first\nsecond\nthird\n", 0]);
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("a failing terminate is typed and retryable; the orchestrator's teardown repeats it", async () => {
    const handle = await runtime.launch();
    emulator.injectFault({ route: TERMINATE, fault: { kind: "status", status: 503 }, times: 4 });
    const error = await expectCode(runtime.destroy(handle), "PROVIDER_UNAVAILABLE");
    assert.equal(error.retryable, true);
    emulator.injectFault({ route: TERMINATE, fault: { kind: "status", status: 503 }, times: 4 });
    const result = await new SandboxOrchestrator(runtime, fast).run({ launch: { reuse: { id: handle.id } } });
    assert.equal(result.teardown.outcome, "destroyed");
  });

  test("foreign sandboxes are never listed, reattached or destroyed", async () => {
    emulator.resetRequests();
    assert.deepEqual(await runtime.findByLabels({ pool: "shared" }), []);
    for (const id of foreign) {
      await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
      await expectCode(runtime.destroy({ id, provider: "modal", labels: {} }), "FOREIGN_SANDBOX");
      await expectCode(runtime.exec({ id, provider: "modal", labels: {} }, { argv: ["true"] }), "FOREIGN_SANDBOX");
    }
    assert.equal(emulator.countRequests(/SandboxTerminateV2|TaskCommandRouter|CommandRouterAccess/), 0);
  });
});
