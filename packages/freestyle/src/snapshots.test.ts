// Snapshots through the real freestyle SDK against the emulator: what a
// snapshot sends and reports, listing by labels, launching from one (its
// files, not the source's env), deleting, and foreign or malformed snapshots
// refused before anything is created.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SnapshotRef } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { Freestyle } from "freestyle";
import { emulated } from "../test/emulated.js";

const CREATE = "POST /v5/vms";

const snapshotBodies: Record<string, unknown>[] = [];
const { emulator, runtime, runtimeWith } = await emulated({
  owner: "snapshot-tests",
  fetch: (input, init) => {
    if (init?.method === "POST" && String(input).endsWith("/snapshot")) {
      snapshotBodies.push(JSON.parse(String(init.body)));
    }
    return globalThis.fetch(input, init);
  },
});
const other = runtimeWith({ owner: "someone-else" });
const freestyle = new Freestyle(emulator.sdkOptions);

const text = async (handle: Parameters<typeof runtime.readFile>[0], path: string) =>
  new TextDecoder().decode(await runtime.readFile(handle, path));

test("snapshot → launch from it → delete: the files as taken, the source running on, labels found, marks on the snapshot", async () => {
  const source = await runtime.launch();
  await runtime.writeFiles(source, [{ path: "state.txt", content: "before" }]);
  snapshotBodies.length = 0;
  const ref = await runtime.snapshot(source, { labels: { step: "one", run: "a" } });
  assert.deepEqual(
    { ...ref, id: "", createdAt: "" },
    {
      id: "",
      provider: "freestyle",
      createdAt: "",
      contents: "filesystem+memory",
      labels: { step: "one", run: "a" },
      sourceId: source.id,
    },
  );
  assert.match(ref.id, /^sh-/);
  assert.ok(Math.abs(Date.parse(ref.createdAt) - Date.now()) < 60_000, ref.createdAt);
  assert.equal(snapshotBodies.length, 1);
  const [body] = snapshotBodies as [{ slug: string; displayName: string }];
  assert.match(body.slug, /^sandport-snap-[0-9a-f]{12}-[0-9a-f]{12}$/);
  assert.deepEqual(JSON.parse(body.displayName), {
    format: "sandport-snapshot-v1",
    owner: "snapshot-tests",
    labels: { step: "one", run: "a" },
  });
  assert.equal((await freestyle.vms.get(source.id)).state, "running", "the source keeps running");

  await runtime.writeFiles(source, [{ path: "state.txt", content: "after" }]);
  const restored = await runtime.launch({ from: ref, labels: { restored: "yes" } });
  assert.equal(await text(restored, "state.txt"), "before");
  assert.equal((await freestyle.vms.get(restored.id)).snapshotId, ref.id, "booted from the snapshot");
  assert.equal(await text(source, "state.txt"), "after");

  assert.deepEqual(
    (await runtime.listSnapshots({ step: "one" })).map((found) => found.id),
    [ref.id],
  );
  assert.deepEqual(await runtime.listSnapshots({ step: "two" }), []);
  const [listed] = await runtime.listSnapshots({});
  assert.deepEqual(listed, ref, "listed as snapshot() returned it");

  await runtime.deleteSnapshot(ref.id);
  assert.deepEqual(await runtime.listSnapshots({}), []);
  await runtime.deleteSnapshot(ref); // absent: resolves
  assert.equal(await text(restored, "state.txt"), "before", "a VM launched from it is untouched");
  await Promise.all([runtime.destroy(source), runtime.destroy(restored)]);
});

test("a VM launched from a snapshot has its own env, never the source's launch env file", async () => {
  const source = await runtime.launch({ env: { SOURCE_SECRET: "s3cret" } });
  const ref = await runtime.snapshot(source);
  const plain = await runtime.launch({ from: ref.id });
  const withEnv = await runtime.launch({ from: ref.id, env: { MINE: "own" } });
  const echo = { argv: ["sh", "-c", 'printf "%s|%s" "$SOURCE_SECRET" "$MINE"'] };
  assert.equal((await runtime.exec(source, echo)).stdout, "s3cret|");
  assert.equal((await runtime.exec(plain, echo)).stdout, "|");
  assert.equal((await runtime.exec(withEnv, echo)).stdout, "|own");
  await runtime.deleteSnapshot(ref);
  await Promise.all([source, plain, withEnv].map((handle) => runtime.destroy(handle)));
});

test("another owner's snapshot is never listed, deleted or launched from; a missing one is NOT_FOUND; neither creates a VM", async () => {
  const theirs = await other.launch();
  const foreign = await other.snapshot(theirs, { labels: { case: "foreign" } });
  assert.deepEqual(await runtime.listSnapshots({ case: "foreign" }), []);
  assert.deepEqual(
    (await other.listSnapshots({ case: "foreign" })).map((found) => found.id),
    [foreign.id],
  );
  emulator.resetRequests();
  await expectCode(runtime.deleteSnapshot(foreign.id), "FOREIGN_SANDBOX");
  await expectCode(runtime.launch({ from: foreign.id }), "NOT_FOUND");
  await expectCode(runtime.launch({ from: "sh-nothing-here-at-all" }), "NOT_FOUND");
  assert.equal(emulator.countRequests(CREATE), 0, "no create was sent");
  assert.equal(emulator.countRequests("DELETE /v5/snapshots/:id"), 0, "no delete was sent");
  assert.equal((await freestyle.vms.snapshots.get(foreign.id)).id, foreign.id, "untouched");

  // A slug of ours names the snapshot too, but only its id is a snapshot id: a slug never launches.
  const source = await runtime.launch();
  const ours = await runtime.snapshot(source);
  const { slug } = await freestyle.vms.snapshots.get(ours.id);
  await expectCode(runtime.launch({ from: String(slug) }), "NOT_FOUND");
  await runtime.deleteSnapshot(ours);
  await expectCode(runtime.launch({ from: ours }), "NOT_FOUND", "deleted");
  assert.equal(emulator.countRequests(CREATE), 1, "only the source was created");
  await other.deleteSnapshot(foreign);
  await Promise.all([other.destroy(theirs), runtime.destroy(source)]);
});

test("a snapshot deleted between the check and the create: NOT_FOUND from Freestyle's refusal, nothing launched", async () => {
  const source = await runtime.launch();
  const ref = await runtime.snapshot(source);
  // Deletes the snapshot just before the create reaches Freestyle (after the runtime's own lookup).
  const racing = runtimeWith({
    fetch: async (input, init) => {
      if (init?.method === "POST" && String(input).endsWith("/v5/vms")) await freestyle.vms.snapshots.delete(ref.id);
      return globalThis.fetch(input, init);
    },
  });
  const before = emulator.liveSandboxes().length;
  const error = await expectCode(racing.launch({ from: ref }), "NOT_FOUND");
  assert.match(String(error.message), /does not exist/);
  assert.equal(emulator.liveSandboxes().length, before, "no VM was made");
  await runtime.destroy(source);
});

test("malformed snapshot ids, options and specs are INVALID_REQUEST before any request", async () => {
  const source = await runtime.launch();
  const elsewhere: SnapshotRef = {
    id: "snap-1",
    provider: "local",
    createdAt: new Date().toISOString(),
    contents: "filesystem",
    labels: {},
    sourceId: "x",
  };
  emulator.resetRequests();
  for (const call of [
    () => runtime.deleteSnapshot("has space"),
    () => runtime.deleteSnapshot(""),
    () => runtime.launch({ from: elsewhere }),
    () => runtime.launch({ from: "a b" }),
    () => runtime.launch({ from: "sh-x", template: "freestyle/ubuntu" }),
    () => runtime.snapshot(source, { labels: { "sandport.owner": "me" } }),
    () => runtime.snapshot(source, { label: {} } as never),
    () => runtime.snapshot({ id: "", provider: "freestyle", labels: {} }),
    () => runtime.listSnapshots({ "": "x" }),
  ]) {
    await expectCode(call(), "INVALID_REQUEST");
  }
  assert.equal(emulator.countRequests(), 0, "nothing was sent");
  await runtime.destroy(source);
});
