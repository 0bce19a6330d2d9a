// Faults injected by the Modal emulator, seen through the real modal SDK and
// ModalRuntime: the shared wire-fault suite (every error typed, no hang past a
// deadline, nothing left unreported), then what only Modal does: a refused,
// dropped or unanswered exec start is repeated with the same exec id, a cut
// output stream is resumed at its offset. After every test nothing of ours is
// left running; foreign sandboxes are never listed, reattached or destroyed.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type ModalEmulator, startModalEmulator } from "@sandport/testkit/emulators/modal";
import { describeWireFaults } from "@sandport/testkit/faults";
import { emulatorOptions } from "../test/emulated.js";
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

  describeWireFaults({
    runtime: () => runtime,
    emulator: () => emulator,
    routes: {
      create: CREATE,
      list: LIST,
      delete: TERMINATE,
      exec: START,
      output: `${ROUTER}TaskExecStdioRead`,
      stream: `${ROUTER}TaskExecStdioRead`,
    },
    // The SDK repeats UNAVAILABLE on a terminate three times.
    attempts: { deleteRefused: 4 },
    // gRPC UNAVAILABLE does not say whether the create ran.
    outcomes: { createUnavailableUnknown: true, execRetriedOn: [503] },
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
