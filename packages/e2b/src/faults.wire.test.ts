// Faults injected by the E2B emulator, seen through the real e2b SDK and E2BRuntime: the shared
// wire-fault suite (every error typed, no hang past a deadline, nothing left unreported), then what
// only E2B does: a dropped or cut command is not repeated and is stopped, a lost startCommand is
// reconciled by its session id. After every test nothing of ours is left alive, and foreign
// sandboxes are never listed, reattached or destroyed.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { describeWireFaults } from "@sandport/testkit/faults";
import { E2BRuntime } from "./e2b-runtime.js";

type Emulator = Awaited<ReturnType<typeof startE2BEmulator>>;

const OWNER = "fault-tests";
const START = "rpc process.Process/Start";

describe("E2BRuntime under injected faults (real e2b SDK → E2B emulator)", () => {
  let emulator: Emulator;
  let runtime: E2BRuntime;
  let foreign: string[] = [];

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

  describeWireFaults({
    runtime: () => runtime,
    emulator: () => emulator,
    routes: {
      create: "POST /v2/sandboxes",
      list: "GET /v2/sandboxes",
      delete: "DELETE /sandboxes/:id",
      exec: START,
      stream: START,
    },
    // The SDK honours Retry-After on a 429 three times.
    attempts: { createRateLimited: 4 },
    outcomes: { execRetriedOn: [503, 429] },
    // Two pages of two, each refused once.
    listRequests: 4,
  });

  test("a dropped command start is not repeated; a command cut mid-stream is an unknown outcome, and stopped", async () => {
    const handle = await runtime.launch();
    try {
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
