// Snapshots through the real SDK (newest and oldest) against the Daytona emulator: the
// source keeps running, a launch from one starts with its files, ownership travels in the
// name, and names that are not ours are refused before any request.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { type DaytonaEmulator, startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulatorOptions, SDKS } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";
import type { DaytonaHandle } from "./handle.js";

for (const sdk of SDKS) {
  describe(`snapshots with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let runtime: DaytonaRuntime;
    let other: DaytonaRuntime;

    before(async () => {
      emulator = await startDaytonaEmulator({ pageSize: 2 });
      runtime = new DaytonaRuntime({ ...emulatorOptions(emulator, sdk), owner: "snapshot-tests" });
      other = new DaytonaRuntime({ ...emulatorOptions(emulator, sdk), owner: "someone-else" });
    });

    after(() => emulator.stop());

    const readText = async (handle: DaytonaHandle, path: string) =>
      new TextDecoder().decode(await runtime.readFile(handle, path));
    const stateOf = (id: string) => emulator.liveSandboxes().find((sandbox) => sandbox.id === id)?.state;

    test("the source keeps running; a launch from the snapshot starts with the files as taken", async () => {
      const source = await runtime.launch();
      try {
        await runtime.writeFiles(source, [{ path: "state.txt", content: "before" }]);
        emulator.resetRequests();
        const ref = await runtime.snapshot(source, { labels: { step: "prepared" } });
        assert.equal(emulator.countRequests("POST /api/sandbox/:idOrName/snapshot"), 1);
        assert.equal(stateOf(source.id), "started", "the source keeps running");
        assert.deepEqual(
          { provider: ref.provider, contents: ref.contents, labels: ref.labels, sourceId: ref.sourceId },
          { provider: "daytona", contents: "filesystem", labels: { step: "prepared" }, sourceId: source.id },
        );
        assert.match(ref.id, /^sp1-[a-z2-7]+$/);
        await runtime.writeFiles(source, [{ path: "state.txt", content: "after" }]);
        const restored = await runtime.launch({ from: ref.id, labels: { restored: "yes" } });
        try {
          assert.equal(await readText(restored, "state.txt"), "before");
          const found = await runtime.findByLabels({ restored: "yes" });
          assert.deepEqual(
            found.map((handle) => handle.id),
            [restored.id],
          );
        } finally {
          await runtime.destroy(restored);
        }
        assert.deepEqual(await runtime.listSnapshots({ step: "prepared" }), [ref]);
        assert.deepEqual(await other.listSnapshots({}), [], "another owner does not see it");
        await runtime.deleteSnapshot(ref);
        assert.deepEqual(await runtime.listSnapshots({}), []);
        await runtime.deleteSnapshot(ref.id);
        const before = emulator.liveSandboxes().length;
        emulator.resetRequests();
        await expectCode(runtime.launch({ from: ref }), "NOT_FOUND");
        assert.equal(emulator.countRequests("POST /api/sandbox"), 0, "no create was sent");
        assert.equal(emulator.liveSandboxes().length, before);
      } finally {
        await runtime.destroy(source);
      }
    });

    test("names that are not ours are refused before any request", async () => {
      const source = await other.launch();
      const theirs = await other.snapshot(source);
      try {
        emulator.resetRequests();
        for (const from of [theirs.id, "base", "sp1-zz"]) await expectCode(runtime.launch({ from }), "NOT_FOUND");
        await expectCode(runtime.deleteSnapshot(theirs), "FOREIGN_SANDBOX");
        await expectCode(runtime.deleteSnapshot({ ...theirs, provider: "e2b" }), "INVALID_REQUEST");
        await expectCode(runtime.launch({ from: theirs, template: "base" }), "INVALID_REQUEST");
        await expectCode(
          runtime.snapshot(source, { labels: { a: "x".repeat(150), b: "y".repeat(150) } }),
          "UNSUPPORTED",
        );
        assert.equal(emulator.countRequests(), 0, "no request was sent");
        await expectCode(runtime.snapshot(source), "FOREIGN_SANDBOX");
        assert.equal(emulator.countRequests("POST /api/sandbox/:idOrName/snapshot"), 0);
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
        for (const step of ["a", "b", "a"]) refs.push(await runtime.snapshot(source, { labels: { step, run: "r1" } }));
        const listed = await runtime.listSnapshots({ run: "r1", step: "a" });
        assert.deepEqual(new Set(listed.map((ref) => ref.id)), new Set([refs[0]?.id, refs[2]?.id]));
        assert.equal((await runtime.listSnapshots({ run: "r1" })).length, 3, "across pages of 2");
      } finally {
        for (const ref of refs) await runtime.deleteSnapshot(ref);
        await runtime.destroy(source);
      }
    });
  });
}
