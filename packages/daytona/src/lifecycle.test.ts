// destroy, stop and start through the real SDK (newest and oldest) against the
// Daytona emulator: destroy is verified by absence, refuses foreign sandboxes,
// and reports what it cannot prove; stop keeps files and start brings the sandbox back.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type DaytonaEmulator, startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulatorOptions, SDKS } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";

for (const sdk of SDKS) {
  describe(`lifecycle with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let runtime: DaytonaRuntime;

    before(async () => {
      emulator = await startDaytonaEmulator({ transitionDelayMs: 300 });
      runtime = new DaytonaRuntime({ ...emulatorOptions(emulator, sdk), owner: "lifecycle" });
    });

    after(() => emulator.stop());

    test("destroy deletes, then reads until the sandbox is gone; an absent sandbox is already destroyed", async () => {
      const handle = await runtime.launch();
      emulator.resetRequests();
      await runtime.destroy(handle);
      const routes = emulator.requests.map((request) => `${request.route} ${request.status}`);
      assert.equal(routes[0], "DELETE /api/sandbox/:id 200");
      assert.equal(routes.at(-1), "GET /api/sandbox/:id 404", "done once Daytona says not found");
      assert.equal(emulator.liveSandboxes().length, 0);
      emulator.resetRequests();
      await runtime.destroy(handle);
      assert.deepEqual(
        emulator.requests.map((request) => `${request.route} ${request.status}`),
        ["GET /api/sandbox/:id 404"],
        "a sandbox this runtime no longer knows is looked up, found absent, and that is success",
      );
    });

    test("destroy of a foreign sandbox is FOREIGN_SANDBOX and deletes nothing", async () => {
      const foreign = await emulator.seedForeignSandbox({ [OWNER_LABEL]: "someone-else" });
      emulator.resetRequests();
      await expectCode(runtime.destroy({ id: foreign, provider: "daytona", labels: {} }), "FOREIGN_SANDBOX");
      assert.equal(emulator.countRequests("DELETE /api/sandbox/:id"), 0);
      assert.ok(emulator.liveSandboxes().some((sandbox) => sandbox.id === foreign));
    });

    test("a destroy that cannot prove absence before its deadline is DESTROY_UNVERIFIED (retryable)", async () => {
      const slow = await startDaytonaEmulator({ transitionDelayMs: 3_000 });
      try {
        const slowRuntime = new DaytonaRuntime({ ...emulatorOptions(slow, sdk), owner: "lifecycle" });
        const handle = await slowRuntime.launch();
        const error = await expectCode(slowRuntime.destroy(handle, { timeoutMs: 1_000 }), "DESTROY_UNVERIFIED");
        assert.equal(error.retryable, true);
        assert.match(error.message, /still listed after the delete/);
      } finally {
        await slow.stop();
      }
    });

    test("stop keeps the files, a second stop is fine, start brings it back; a delete refused during a state change is retried", async () => {
      const handle = await runtime.launch();
      await runtime.writeFiles(handle, [{ path: "kept.txt", content: "kept" }]);
      await runtime.stop(handle);
      assert.equal(emulator.liveSandboxes().find((sandbox) => sandbox.id === handle.id)?.state, "stopped");
      await runtime.stop(handle);
      await runtime.start(handle);
      assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "kept.txt")), "kept");
      assert.equal((await runtime.exec(handle, { argv: ["true"] })).exitCode, 0);
      emulator.resetRequests();
      await runtime.start(handle);
      assert.equal(emulator.countRequests("POST /api/sandbox/:id/start"), 0, "a started sandbox is only probed");
      const stopping = runtime.stop(handle);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await runtime.destroy(handle);
      await stopping.catch(() => undefined);
      assert.ok(!emulator.liveSandboxes().some((sandbox) => sandbox.id === handle.id));
    });

    test("stop and start of an absent sandbox are NOT_FOUND; of a foreign one FOREIGN_SANDBOX", async () => {
      const absent = { id: "0d9f6a35-0000-4000-8000-000000000000", provider: "daytona" as const, labels: {} };
      await expectCode(runtime.stop(absent), "NOT_FOUND");
      await expectCode(runtime.start(absent), "NOT_FOUND");
      const foreign = await emulator.seedForeignSandbox({});
      await expectCode(runtime.stop({ ...absent, id: foreign }), "FOREIGN_SANDBOX");
      await expectCode(runtime.start({ ...absent, id: foreign }), "FOREIGN_SANDBOX");
    });
  });
}
