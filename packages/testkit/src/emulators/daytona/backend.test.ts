// How the Daytona emulator uses its backend runtime: networkBlockAll reaches it
// as `network: false` (honoured by a namespaced LocalRuntime, refused by an
// unisolated one), and stop() leaves nothing running.

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { LocalRuntime } from "@sandport/local";
import { destroyEverySandbox } from "../harness/backend.js";
import { emulatorFetch, openClient } from "./client.fixture.js";
import { startDaytonaEmulator } from "./emulator.js";
import { DAYTONA_SDKS } from "./sdk.fixture.js";

/** The network interfaces a command sees (`lo` alone in an empty network namespace). */
const INTERFACES = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ' '";

for (const sdk of DAYTONA_SDKS) {
  describe(`Daytona emulator backends with ${sdk.label}`, () => {
    it("networkBlockAll on a backend that cannot honour it leaves the sandbox in state error, listed only on request", async () => {
      // Explicitly unisolated: the default backend is namespaced wherever bubblewrap works.
      const root = await mkdtemp(join(tmpdir(), "sandport-daytona-none-"));
      const runtime = new LocalRuntime({ root, isolation: "none" });
      const emulator = await startDaytonaEmulator({ backend: runtime });
      const daytona = openClient(sdk, emulator);
      try {
        const failure = await daytona.create({ networkBlockAll: true }).then(
          () => assert.fail("create must fail"),
          (error: unknown) => error,
        );
        assert.ok(failure instanceof sdk.sdk.DaytonaError);
        assert.match((failure as Error).message, /error reason: .*network: "none"/);
        const [errored] = emulator.liveSandboxes();
        assert.equal(errored?.state, "error");
        const listed = async (query: string) =>
          ((await (await emulatorFetch(emulator, `/api/sandbox${query}`)).json()) as { items: { id: string }[] }).items;
        assert.deepEqual(await listed(""), []);
        assert.deepEqual(
          (await listed("?includeErroredDeleted=true")).map((item) => item.id),
          [errored?.id],
        );
        assert.equal((await emulatorFetch(emulator, `/api/sandbox/${errored?.id}`, { method: "DELETE" })).status, 200);
      } finally {
        await daytona[Symbol.asyncDispose]();
        await emulator.stop();
        await destroyEverySandbox(runtime);
        await rm(root, { recursive: true, force: true });
      }
      assert.deepEqual(emulator.liveSandboxes(), []);
    });

    it("networkBlockAll on a namespaced LocalRuntime cuts the sandbox off the network", async (context) => {
      const root = await mkdtemp(join(tmpdir(), "sandport-daytona-namespaces-"));
      try {
        // As the default backend: an open Daytona sandbox is a machine with open egress (see backend.ts).
        const runtime = new LocalRuntime({ root, hostNetwork: true });
        try {
          await runtime.destroy(await runtime.launch({ network: false }));
        } catch (error) {
          context.skip(`namespaces are unusable here: ${(error as Error).message}`);
          return;
        }
        const emulator = await startDaytonaEmulator({ backend: runtime });
        const daytona = openClient(sdk, emulator);
        try {
          const blocked = await daytona.create({ networkBlockAll: true });
          const open = await daytona.create();
          assert.equal(blocked.networkBlockAll, true);
          assert.equal((await blocked.process.executeCommand(INTERFACES)).result, "lo ");
          assert.notEqual((await open.process.executeCommand(INTERFACES)).result, "lo ");
          await blocked.fs.uploadFile(Buffer.from("inside"), "file.txt");
          assert.equal((await blocked.process.executeCommand("cat file.txt")).result, "inside");
        } finally {
          await daytona[Symbol.asyncDispose]();
          await emulator.stop();
          await destroyEverySandbox(runtime);
        }
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    });

    it("stop() destroys every sandbox, kills its commands and closes the port; it is idempotent", async () => {
      const emulator = await startDaytonaEmulator();
      const daytona = openClient(sdk, emulator);
      const sandbox = await daytona.create();
      await sandbox.process.createSession("long");
      await sandbox.process.executeSessionCommand("long", { command: "sleep 30", runAsync: true });
      const running = sandbox.process.executeCommand("sleep 30").catch((error: unknown) => error);
      await emulator.seedForeignSandbox({ owner: "someone-else" });
      assert.equal(emulator.liveSandboxes().length, 2);
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
      assert.deepEqual(emulator.liveSandboxes(), []);
      assert.ok((await running) instanceof sdk.sdk.DaytonaError, "the command's request ends with the emulator");
      await assert.rejects(fetch(`${emulator.url}/api/sandbox`));
      await emulator.stop();
    });
  });
}
