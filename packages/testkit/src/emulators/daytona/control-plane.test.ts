// The Daytona API's smaller calls and its state rules, with the real SDKs 0.218 and 0.180.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { deleteAll, emulatorFetch, openClient } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";
import { DAYTONA_SDKS, type DaytonaClient } from "./sdk.fixture.js";

for (const sdk of DAYTONA_SDKS) {
  describe(`Daytona API calls with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;

    before(async () => {
      // A visible settling delay makes the transitional states observable.
      emulator = await startDaytonaEmulator({ transitionDelayMs: 300 });
      daytona = openClient(sdk, emulator);
    });

    after(async () => {
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    afterEach(() => deleteAll(emulator));

    it("labels are replaced, intervals set and activity refreshed, each through its own route", async () => {
      const sandbox = await daytona.create({ labels: { phase: "one" } });
      emulator.resetRequests();
      assert.deepEqual(await sandbox.setLabels({ phase: "two" }), { phase: "two" });
      await sandbox.setAutostopInterval(30);
      await sandbox.setAutoArchiveInterval(0);
      await sandbox.setAutoDeleteInterval(-1);
      await sandbox.refreshActivity();
      await sandbox.refreshData();
      assert.deepEqual(
        [sandbox.autoStopInterval, sandbox.autoArchiveInterval, sandbox.autoDeleteInterval],
        [30, 43_200, -1],
        "an auto-archive interval of 0 means the longest one",
      );
      assert.deepEqual(
        emulator.requests.map((request) => `${request.route} ${request.status}`),
        [
          "PUT /api/sandbox/:id/labels 200",
          "POST /api/sandbox/:id/autostop/:interval 201",
          "POST /api/sandbox/:id/autoarchive/:interval 201",
          "POST /api/sandbox/:id/autodelete/:interval 201",
          "POST /api/sandbox/:id/last-activity 201",
          "GET /api/sandbox/:id 200",
        ],
      );
      const found: string[] = [];
      for await (const item of daytona.list({ labels: { phase: "two" } })) found.push(item.id);
      assert.deepEqual(found, [sandbox.id]);
    });

    it("transitional states are visible, and a call during one is refused with 400", async () => {
      emulator.resetRequests();
      const created = daytona.create({ image: "debian:12" });
      await waitFor(() => emulator.liveSandboxes()[0]?.state === "creating", { what: "a sandbox in state creating" });
      const id = emulator.liveSandboxes()[0]!.id;
      const busy = await emulatorFetch(emulator, `/api/sandbox/${id}`, { method: "DELETE" });
      assert.equal(busy.status, 400);
      assert.equal(((await busy.json()) as { message: string }).message, "Sandbox state change in progress");
      const sandbox = await created;
      assert.equal(sandbox.state, "started");
      await sandbox.stop();
      assert.equal(sandbox.state, "stopped");
      const stopPolls = emulator.requests.filter((request) => request.route === "GET /api/sandbox/:id");
      assert.ok(stopPolls.length >= 2, "the SDK polled through `creating` and `stopping`");
      await sandbox.start();
      assert.equal(sandbox.state, "started", "start answers once the sandbox started");
      const deleted = await emulatorFetch(emulator, `/api/sandbox/${id}`, { method: "DELETE" });
      assert.equal(((await deleted.json()) as { state: string }).state, "destroying");
      assert.equal(emulator.liveSandboxes()[0]?.state, "destroying");
    });

    it("list refuses what it does not emulate and honours sort, order and date filters", async () => {
      const first = await daytona.create({ name: "b-first", labels: { suite: "sort" } });
      const second = await daytona.create({ name: "a-second", labels: { suite: "sort" } });
      const page = async (query: string) => {
        const response = await emulatorFetch(emulator, `/api/sandbox?${query}`);
        return { status: response.status, body: (await response.json()) as { items?: { name: string }[] } };
      };
      const byName = await page("sort=name&order=asc");
      assert.deepEqual(
        byName.body.items?.map((item) => item.name),
        ["a-second", "b-first"],
      );
      const newestFirst = await page("");
      assert.deepEqual(
        newestFirst.body.items?.map((item) => item.name),
        ["a-second", "b-first"],
      );
      const after = await page(`createdAtAfter=${encodeURIComponent(first.createdAt ?? "")}`);
      assert.deepEqual(
        after.body.items?.map((item) => item.name),
        [second.name],
      );
      assert.equal((await page("minCpu=2")).body.items?.length, 0);
      assert.equal((await page("autoDestroyAtAfter=2020-01-01T00:00:00Z")).status, 400);
      assert.equal((await page("cursor=not-a-cursor")).status, 400);
      assert.equal((await page("labels=%7Bbroken")).status, 400);
      assert.equal((await page("limit=0")).status, 400);
    });
  });
}
