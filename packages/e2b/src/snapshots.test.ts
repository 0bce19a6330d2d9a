// Snapshots through the real e2b SDK against the E2B emulator: the source keeps running,
// a launch from one starts with its files, ownership travels in the name, and ids that are
// not ours are refused before any request.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import type { E2BHandle } from "./handle.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "snapshot-tests", lifetimeMs: 120_000 });
const other = runtimeWith({ owner: "someone-else" });

const readText = async (handle: E2BHandle, path: string) =>
  new TextDecoder().decode(await runtime.readFile(handle, path));
const stateOf = (id: string) => emulator.liveSandboxes().find((sandbox) => sandbox.id === id)?.state;

test("snapshot: E2B's call, the source keeps running; a launch from it starts with the files as taken", async () => {
  const source = await runtime.launch();
  try {
    await runtime.writeFiles(source, [{ path: "state.txt", content: "before" }]);
    emulator.resetRequests();
    const ref = await runtime.snapshot(source, { labels: { step: "prepared" } });
    assert.equal(emulator.countRequests("POST /sandboxes/:id/snapshots"), 1);
    assert.equal(stateOf(source.id), "running", "the source keeps running");
    assert.deepEqual(
      { provider: ref.provider, contents: ref.contents, labels: ref.labels, sourceId: ref.sourceId },
      { provider: "e2b", contents: "filesystem+memory", labels: { step: "prepared" }, sourceId: source.id },
    );
    assert.match(ref.id, /^sandport-emulator\/sp1-[a-z2-7]+:default$/);
    assert.ok(Math.abs(Date.parse(ref.createdAt) - Date.now()) < 60_000);
    await runtime.writeFiles(source, [{ path: "state.txt", content: "after" }]);
    const restored = await runtime.launch({ from: ref, labels: { restored: "yes" } });
    try {
      assert.equal(await readText(restored, "state.txt"), "before");
      assert.deepEqual(restored.labels, { restored: "yes" });
      const found = await runtime.findByLabels({ restored: "yes" });
      assert.deepEqual(
        found.map((handle) => handle.id),
        [restored.id],
        "owned like any launch",
      );
    } finally {
      await runtime.destroy(restored);
    }
    assert.deepEqual(await runtime.listSnapshots({ step: "prepared" }), [ref], "listed with what it was taken with");
    assert.deepEqual(await other.listSnapshots({}), [], "another owner does not see it");
    await runtime.deleteSnapshot(ref);
    assert.deepEqual(await runtime.listSnapshots({}), []);
    await runtime.deleteSnapshot(ref.id);
    const before = emulator.liveSandboxes().length;
    await expectCode(runtime.launch({ from: ref }), "NOT_FOUND");
    assert.equal(emulator.liveSandboxes().length, before, "a launch from a deleted snapshot creates nothing");
  } finally {
    await runtime.destroy(source);
  }
});

test("ids that are not ours are refused before any request: launch NOT_FOUND, delete FOREIGN_SANDBOX", async () => {
  const source = await other.launch();
  const theirs = await other.snapshot(source);
  try {
    emulator.resetRequests();
    for (const from of [theirs.id, "base", "sandport-emulator/checkpoint:default", "sp1-zz"]) {
      await expectCode(runtime.launch({ from }), "NOT_FOUND");
    }
    await expectCode(runtime.deleteSnapshot(theirs), "FOREIGN_SANDBOX");
    await expectCode(runtime.deleteSnapshot("sandport-emulator/checkpoint:default"), "FOREIGN_SANDBOX");
    await expectCode(runtime.deleteSnapshot({ ...theirs, provider: "local" }), "INVALID_REQUEST");
    await expectCode(runtime.launch({ from: theirs, template: "base" }), "INVALID_REQUEST");
    await expectCode(runtime.snapshot(source, { labels: { a: "x".repeat(100), b: "y".repeat(100) } }), "UNSUPPORTED");
    await expectCode(runtime.snapshot(source, { labels: { "sandport.owner": "x" } }), "INVALID_REQUEST");
    assert.equal(emulator.countRequests(), 0, "no request was sent");
    await expectCode(runtime.snapshot(source), "FOREIGN_SANDBOX");
    assert.equal(emulator.countRequests("POST /sandboxes/:id/snapshots"), 0, "a foreign sandbox is never snapshotted");
    assert.deepEqual(await other.listSnapshots({}), [theirs], "theirs is untouched");
  } finally {
    await other.deleteSnapshot(theirs);
    await other.destroy(source);
  }
});

test("listSnapshots follows every page and filters by every label", async () => {
  const source = await runtime.launch();
  const refs = [];
  try {
    for (const step of ["a", "b", "a", "b"]) refs.push(await runtime.snapshot(source, { labels: { step, run: "r1" } }));
    emulator.resetRequests();
    const listed = await runtime.listSnapshots({ run: "r1", step: "a" });
    assert.deepEqual(new Set(listed.map((ref) => ref.id)), new Set([refs[0]?.id, refs[2]?.id]));
    assert.ok(emulator.countRequests("GET /snapshots") >= 2, "pages of 3 followed");
    assert.equal((await runtime.listSnapshots({ run: "r1" })).length, 4);
  } finally {
    for (const ref of refs) await runtime.deleteSnapshot(ref);
    await runtime.destroy(source);
  }
});
