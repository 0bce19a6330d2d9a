// Wire tests of snapshots: the real freestyle SDK (vm.snapshot(),
// freestyle.vms.snapshots) against the emulator, which keeps a snapshot's
// files on its backend and boots a new VM from them.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { type CreateVmOptions, Freestyle, FreestyleApiError } from "freestyle";
import { type FreestyleEmulator, startFreestyleEmulator } from "./emulator.js";

const egress: CreateVmOptions["firewall"] = {
  rules: [{ action: "allow", source: {}, destination: { public: true } }],
};

async function apiError(promise: Promise<unknown>): Promise<FreestyleApiError> {
  const error = await promise.then(
    () => assert.fail("the call must fail"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof FreestyleApiError, `expected a FreestyleApiError, got ${String(error)}`);
  return error;
}

describe("Freestyle emulator snapshots with the real freestyle SDK", () => {
  let emulator: FreestyleEmulator;
  let freestyle: Freestyle;

  before(async () => {
    emulator = await startFreestyleEmulator();
    freestyle = new Freestyle(emulator.sdkOptions);
  });

  after(() => emulator.stop());

  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) await freestyle.vms.delete(id).catch(() => undefined);
    const { snapshots } = await freestyle.vms.snapshots.list();
    for (const { id } of snapshots) await freestyle.vms.snapshots.delete(id);
  });

  const create = (extra: Partial<CreateVmOptions> = {}) => freestyle.vms.create({ firewall: egress, ...extra });
  const workspace = (path: string) => `${emulator.workspaceDirectory}/${path}`;

  it("snapshot → create from it has the files as taken; the source keeps running and its later writes stay its own", async () => {
    const { vm, vmId } = await create();
    await vm.fs.writeTextFile(workspace("state.txt"), "before");
    emulator.resetRequests();
    const taken = await vm.snapshot({ slug: "snap-one", displayName: "first" });
    assert.match(taken.snapshotId, /^sh-[a-z0-9]{20}$/);
    assert.equal(taken.sourceVmId, vmId);
    assert.deepEqual(
      [taken.snapshot.slug, taken.snapshot.displayName, taken.snapshot.public],
      ["snap-one", "first", false],
    );
    assert.deepEqual(
      emulator.requests.map((request) => `${request.method} ${request.path}`),
      [`POST /v5/vms/${vmId}/snapshot`],
    );
    assert.equal((await vm.data()).state, "running", "the source keeps running");
    await vm.fs.writeTextFile(workspace("state.txt"), "after");

    for (const from of [taken.snapshotId, "snap-one"]) {
      const restored = await create({ snapshotId: from });
      assert.equal(await restored.vm.fs.readTextFile(workspace("state.txt")), "before");
      assert.equal((await restored.vm.data()).snapshotId, taken.snapshotId, "reported by id, even booted by slug");
      await restored.vm.fs.writeTextFile(workspace("state.txt"), "changed in the copy");
      await freestyle.vms.delete(restored.vmId);
    }
    assert.equal(await vm.fs.readTextFile(workspace("state.txt")), "after");
    const got = await freestyle.vms.snapshots.get(taken.snapshotId);
    assert.equal(got.sourceVmId, vmId);
    assert.notEqual(got.lastUsedAt ?? null, null, "a create from it is its last use");
  });

  it("lists (filtered by source VM, paged), gets by id or slug, deletes: then 404 SNAPSHOT_NOT_FOUND everywhere", async () => {
    const first = await create();
    const second = await create();
    const a = await first.vm.snapshot();
    const b = await first.vm.snapshot({ slug: "snap-b" });
    const c = await second.vm.snapshot();
    const all = await freestyle.vms.snapshots.list();
    assert.deepEqual(
      [all.totalCount, all.snapshots.map((item) => item.id)],
      [3, [a.snapshotId, b.snapshotId, c.snapshotId]],
    );
    const page = await freestyle.vms.snapshots.list({ sourceVmId: first.vmId, limit: 1, offset: 1 });
    assert.deepEqual([page.totalCount, page.snapshots.map((item) => item.id)], [2, [b.snapshotId]]);
    assert.equal((await freestyle.vms.snapshots.get("snap-b")).id, b.snapshotId);
    const taken = await apiError(first.vm.snapshot({ slug: "snap-b" }));
    assert.deepEqual([taken.status, taken.code], [409, "SLUG_TAKEN"]);

    await freestyle.vms.snapshots.delete(b.snapshotId);
    for (const gone of [
      freestyle.vms.snapshots.get(b.snapshotId),
      freestyle.vms.snapshots.delete(b.snapshotId),
      create({ snapshotId: b.snapshotId }),
      create({ snapshotId: "snap-b" }),
    ]) {
      const error = await apiError(gone);
      assert.deepEqual([error.status, error.code], [404, "SNAPSHOT_NOT_FOUND"]);
    }
    assert.deepEqual(
      (await freestyle.vms.snapshots.list()).snapshots.map((item) => item.id),
      [a.snapshotId, c.snapshotId],
    );
    assert.equal(emulator.liveSandboxes().length, 2, "a refused create launched nothing");
  });

  it("refuses lifetimes it cannot honour (NOT_EMULATED) and a snapshot of an absent VM (VM_NOT_FOUND)", async () => {
    const { vm } = await create();
    for (const options of [{ ttlSeconds: 60 }, { autoDeleteSeconds: 60 }]) {
      const error = await apiError(vm.snapshot(options));
      assert.deepEqual([error.status, error.code], [400, "NOT_EMULATED"]);
    }
    const missing = await apiError(freestyle.vms.ref("vm-that-is-not-there").snapshot());
    assert.deepEqual([missing.status, missing.code], [404, "VM_NOT_FOUND"]);
    assert.equal((await freestyle.vms.snapshots.list()).totalCount, 0);
  });
});
