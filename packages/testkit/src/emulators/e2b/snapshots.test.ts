// E2B snapshots through the real e2b SDK (README.md, "Contract (snapshots)"): a snapshot
// keeps the source running and its files for real (the backend's own snapshot), a sandbox
// created with its id starts from them, the team lists and deletes it.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as e2b from "e2b";
import { useEmulator } from "./sdk-tests.fixture.js";

describe("E2B emulator: snapshots", () => {
  const fixture = useEmulator({ templates: { large: { cpuCount: 4, memoryMB: 4096, diskSizeMB: 8192 } } });

  it("a snapshot keeps the source running; a sandbox created from it has the files as taken", async () => {
    const { emulator } = fixture;
    const source = await fixture.create();
    await source.files.write("/home/user/state.txt", "before");
    const taken = await e2b.Sandbox.createSnapshot(source.sandboxId, { ...emulator.sdkOptions, name: "checkpoint" });
    assert.deepEqual(taken, {
      snapshotId: "sandport-emulator/checkpoint:default",
      names: ["sandport-emulator/checkpoint"],
    });
    assert.equal(emulator.liveSandboxes().find((entry) => entry.id === source.sandboxId)?.state, "running");
    await source.files.write("/home/user/state.txt", "after");
    const restored = await e2b.Sandbox.create(taken.snapshotId, { ...emulator.sdkOptions, timeoutMs: 60_000 });
    assert.equal(await restored.files.read("/home/user/state.txt"), "before");
    await restored.files.write("/home/user/state.txt", "changed in the copy");
    assert.equal(await source.files.read("/home/user/state.txt"), "after", "the source is untouched");
    const again = await e2b.Sandbox.create(taken.snapshotId, { ...emulator.sdkOptions, timeoutMs: 60_000 });
    assert.equal(await again.files.read("/home/user/state.txt"), "before", "the copy did not change the snapshot");
    assert.equal(await e2b.Sandbox.deleteSnapshot(taken.snapshotId, emulator.sdkOptions), true);
    assert.equal(await e2b.Sandbox.deleteSnapshot(taken.snapshotId, emulator.sdkOptions), false, "already gone");
    await assert.rejects(
      e2b.Sandbox.create(taken.snapshotId, { ...emulator.sdkOptions, timeoutMs: 60_000 }),
      (error: Error) => /template 'sandport-emulator\/checkpoint:default' not found/.test(error.message),
    );
  });

  it("a sandbox created from a snapshot has its source's sizes (its build's), whatever its template's name", async () => {
    const { emulator } = fixture;
    const source = await e2b.Sandbox.create("large", { ...emulator.sdkOptions, timeoutMs: 60_000 });
    const taken = await e2b.Sandbox.createSnapshot(source.sandboxId, emulator.sdkOptions);
    const restored = await e2b.Sandbox.create(taken.snapshotId, { ...emulator.sdkOptions, timeoutMs: 60_000 });
    const info = await e2b.Sandbox.getInfo(restored.sandboxId, emulator.sdkOptions);
    assert.deepEqual([info.cpuCount, info.memoryMB], [4, 4096]);
    await e2b.Sandbox.deleteSnapshot(taken.snapshotId, emulator.sdkOptions);
  });

  it("lists every snapshot of the team across pages, filtered by source sandbox", async () => {
    const { emulator } = fixture;
    const first = await fixture.create();
    const second = await fixture.create();
    const ids: string[] = [];
    for (const source of [first, first, first, second]) {
      ids.push((await e2b.Sandbox.createSnapshot(source.sandboxId, emulator.sdkOptions)).snapshotId);
    }
    const listed = async (opts: Partial<e2b.SnapshotListOpts> = {}) => {
      const paginator = e2b.Sandbox.listSnapshots({ ...emulator.sdkOptions, ...opts });
      const found: string[] = [];
      while (paginator.hasNext) found.push(...(await paginator.nextItems()).map((entry) => entry.snapshotId));
      return found;
    };
    emulator.resetRequests();
    assert.deepEqual(new Set(await listed()), new Set(ids));
    assert.equal(emulator.countRequests("GET /snapshots"), 2, "pages of 3 followed through x-next-token");
    assert.deepEqual(new Set(await listed({ sandboxId: first.sandboxId })), new Set(ids.slice(0, 3)));
    for (const id of ids) assert.match(id, /^[a-z0-9]{20}:default$/, "an unnamed snapshot is its template id");
    for (const id of ids) await e2b.Sandbox.deleteSnapshot(id, emulator.sdkOptions);
    assert.deepEqual(await listed(), []);
  });

  it("refuses a name E2B refuses, another team's namespace, and a sandbox that is not running", async () => {
    const { emulator } = fixture;
    const source = await fixture.create();
    for (const name of ["Not Valid!", "other-team/checkpoint"]) {
      await assert.rejects(
        e2b.Sandbox.createSnapshot(source.sandboxId, { ...emulator.sdkOptions, name }),
        (error: Error) =>
          error.constructor.name !== "SandboxNotFoundError" && /400|Invalid name|namespace/.test(`${error.message}`),
        name,
      );
    }
    await e2b.Sandbox.pause(source.sandboxId, emulator.sdkOptions);
    await assert.rejects(e2b.Sandbox.createSnapshot(source.sandboxId, emulator.sdkOptions), e2b.SandboxNotFoundError);
    await assert.rejects(e2b.Sandbox.createSnapshot("inope", emulator.sdkOptions), e2b.SandboxNotFoundError);
    const listed = await e2b.Sandbox.listSnapshots(emulator.sdkOptions).nextItems();
    assert.deepEqual(listed, [], "nothing was taken");
  });
});
