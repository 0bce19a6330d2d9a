// Daytona snapshots taken from sandboxes, through the real SDKs (README.md, "Contract
// (snapshots)"): the sandbox is snapshotting, then started again, still running; a sandbox
// created from the snapshot starts with its files (the backend's own snapshot); list, get, delete.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { deleteAll, openClient } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";
import { DAYTONA_SDKS, type DaytonaClient } from "./sdk.fixture.js";

for (const sdk of DAYTONA_SDKS) {
  describe(`Daytona emulator snapshots with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;

    before(async () => {
      emulator = await startDaytonaEmulator({ pageSize: 2 });
      daytona = openClient(sdk, emulator);
    });

    after(async () => {
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    afterEach(() => deleteAll(emulator));

    it("a snapshot of a started sandbox keeps it started; a sandbox created from it has the files as taken", async () => {
      const source = await daytona.create({ snapshot: "base" });
      await source.fs.uploadFile(Buffer.from("before"), "state.txt");
      // 0.180 has only the experimental name of the same call.
      const take = source.createSnapshot ?? source._experimental_createSnapshot;
      await take.call(source, "checkpoint-one");
      assert.equal(emulator.liveSandboxes().find((entry) => entry.id === source.id)?.state, "started");
      await source.fs.uploadFile(Buffer.from("after"), "state.txt");
      const restored = await daytona.create({ snapshot: "checkpoint-one" });
      assert.equal((await restored.fs.downloadFile("state.txt")).toString(), "before");
      assert.equal((await source.fs.downloadFile("state.txt")).toString(), "after", "the source is untouched");
      const found = await daytona.snapshot.get("checkpoint-one");
      assert.deepEqual([found.name, found.state, found.sourceSandboxId], ["checkpoint-one", "active", source.id]);
      await assert.rejects(take.call(source, "checkpoint-one"), /already exists/);
      await daytona.snapshot.delete(found);
      await assert.rejects(daytona.snapshot.get("checkpoint-one"), /not found/);
      await assert.rejects(daytona.create({ snapshot: "checkpoint-one" }), /not found/);
    });

    it("lists snapshots page by page", async () => {
      const source = await daytona.create({ snapshot: "base" });
      const take = source.createSnapshot ?? source._experimental_createSnapshot;
      for (const name of ["page-a", "page-b", "page-c"]) await take.call(source, name);
      const first = await daytona.snapshot.list(1, 2);
      const second = await daytona.snapshot.list(2, 2);
      assert.deepEqual([first.total, first.totalPages, second.page], [3, 2, 2]);
      assert.deepEqual(
        new Set([...first.items, ...second.items].map((entry) => entry.name)),
        new Set(["page-a", "page-b", "page-c"]),
      );
      for (const entry of [...first.items, ...second.items]) await daytona.snapshot.delete(entry);
      assert.equal((await daytona.snapshot.list(1, 2)).total, 0);
    });
  });
}
