// Daytona's fork (`POST /api/sandbox/{idOrName}/fork`) through the real SDKs (README.md,
// "Contract (fork)"): a fork of a started VM sandbox is a new sandbox with the source's files
// (the backend's own fork), labels and env, in one request; later writes stay apart; the source is
// started again; a container sandbox, a stopped one, an unknown one and a taken name are refused.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { deleteAll, emulatorFetch, openClient } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";
import { DAYTONA_SDKS, type DaytonaClient, type DaytonaSandbox } from "./sdk.fixture.js";

const FORK = "POST /api/sandbox/:idOrName/fork";

/** The SDK's fork: `fork` from 0.216, `_experimental_fork` in 0.180 (and still, deprecated, after). */
function forkOf(sandbox: DaytonaSandbox, params?: { name?: string }): Promise<DaytonaSandbox> {
  const fork = sandbox.fork ?? sandbox._experimental_fork;
  return fork.call(sandbox, params);
}

async function readText(sandbox: DaytonaSandbox, path: string): Promise<string> {
  return (await sandbox.fs.downloadFile(path)).toString();
}

for (const sdk of DAYTONA_SDKS) {
  describe(`Daytona emulator fork with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;

    before(async () => {
      emulator = await startDaytonaEmulator({ sandboxClass: "linux-vm" });
      daytona = openClient(sdk, emulator);
    });

    after(async () => {
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    afterEach(() => deleteAll(emulator));

    const stateOf = (id: string) => emulator.liveSandboxes().find((entry) => entry.id === id)?.state;

    it("a fork is a new started sandbox with the source's files, labels and env, made by one request", async () => {
      const source = await daytona.create({ labels: { team: "a" }, envVars: { GREETING: "hi" } });
      await source.fs.uploadFile(Buffer.from("before"), "state.txt");
      emulator.resetRequests();
      const forked = await forkOf(source, { name: "copy-one" });
      assert.equal(emulator.countRequests(FORK), 1);
      assert.equal(emulator.countRequests("POST /api/sandbox"), 0, "no create");
      assert.notEqual(forked.id, source.id);
      assert.deepEqual([forked.name, forked.state], ["copy-one", "started"]);
      assert.deepEqual(forked.labels, source.labels, "the API copies every label");
      assert.deepEqual(forked.env, source.env);
      assert.equal(stateOf(source.id), "started", "the source is started again");
      assert.equal(await readText(forked, "state.txt"), "before");
      const echoed = await forked.process.executeCommand("echo $GREETING");
      assert.equal(echoed.result.trim(), "hi");
      await source.fs.uploadFile(Buffer.from("in the source"), "state.txt");
      await forked.fs.uploadFile(Buffer.from("in the fork"), "state.txt");
      assert.equal(await readText(source, "state.txt"), "in the source");
      assert.equal(await readText(forked, "state.txt"), "in the fork");
      await assert.rejects(forkOf(source, { name: "copy-one" }), /already exists/);
      await source.delete();
      assert.equal(await readText(forked, "state.txt"), "in the fork", "the fork outlives its source");
    });

    it("a stopped source, an unknown one and a name that is not a string are refused", async () => {
      const source = await daytona.create();
      await source.stop();
      const before = emulator.liveSandboxes().length;
      await assert.rejects(forkOf(source), /must be in started state to fork/);
      assert.equal(emulator.liveSandboxes().length, before, "nothing was created");
      const unknown = await emulatorFetch(emulator, "/api/sandbox/no-such-sandbox/fork", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(unknown.status, 404);
      await source.start();
      const badName = await emulatorFetch(emulator, `/api/sandbox/${source.id}/fork`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: 5 }),
      });
      assert.equal(badName.status, 400);
      assert.equal(emulator.liveSandboxes().length, before);
    });
  });

  describe(`Daytona emulator fork states with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;

    before(async () => {
      // A visible settling delay makes the transitional states observable.
      emulator = await startDaytonaEmulator({ sandboxClass: "linux-vm", transitionDelayMs: 300 });
      daytona = openClient(sdk, emulator);
    });

    after(async () => {
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    it("the answer is the fork, creating; the source is forking, refusing state changes, then both are started", async () => {
      const source = await daytona.create();
      const answer = await emulatorFetch(emulator, `/api/sandbox/${source.id}/fork`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(answer.status, 200);
      const forked = (await answer.json()) as { id: string; state: string; name: string };
      assert.deepEqual([forked.state, forked.name], ["creating", forked.id], "unnamed, the fork is named by its id");
      const states = () => [source.id, forked.id].map((id) => emulator.liveSandboxes().find((e) => e.id === id)?.state);
      assert.deepEqual(states(), ["forking", "creating"]);
      await assert.rejects(source.stop(), /state change in progress/);
      await waitFor(() => states().every((state) => state === "started"), {
        timeoutMs: 10_000,
        what: "the source and the fork to be started",
      });
      await deleteAll(emulator);
    });
  });

  describe(`Daytona emulator fork of a container sandbox with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;

    before(async () => {
      emulator = await startDaytonaEmulator();
      daytona = openClient(sdk, emulator);
    });

    after(async () => {
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    it("is refused with 422, as Daytona forks VM sandboxes only", async () => {
      const source = await daytona.create();
      await assert.rejects(forkOf(source), /Forking is not supported for this sandbox/);
      assert.deepEqual(
        emulator.liveSandboxes().map((entry) => entry.id),
        [source.id],
      );
      await deleteAll(emulator);
    });
  });
}
