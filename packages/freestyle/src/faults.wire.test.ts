// Faults injected by the Freestyle emulator, seen through the real freestyle
// SDK (which retries nothing itself) and FreestyleRuntime: the shared
// wire-fault suite (every error typed, no hang past a deadline, nothing left
// unreported), then what only Freestyle does: a create abandoned while it is
// backgrounded is followed or found by its slug. After every test nothing of
// ours is left alive; foreign VMs are never listed, reattached or destroyed.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type FreestyleEmulator, startFreestyleEmulator } from "@sandport/testkit/emulators/freestyle";
import { describeWireFaults } from "@sandport/testkit/faults";
import { emulatorOptions, HOME } from "../test/emulated.js";
import { FreestyleRuntime } from "./freestyle-runtime.js";

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

  describeWireFaults({
    runtime: () => runtime,
    emulator: () => emulator,
    routes: { create: CREATE, list: LIST, delete: DELETE, exec: "POST /v5/vms/:id/exec-await" },
    // Two pages of two, each refused once.
    listRequests: 4,
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
