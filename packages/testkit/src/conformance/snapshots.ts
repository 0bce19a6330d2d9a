import assert from "node:assert/strict";
import type { SandboxHandle } from "@sandport/core";
import { expectCode, readText } from "./assertions.js";
import { type CheckGroup, GROUP_LABEL, RUN_LABEL } from "./suite.js";

/**
 * Registers the snapshot checks, for runtimes with `snapshot`: a launch from
 * a snapshot starts with the files as they were when it was taken (later
 * writes to the source, and writes in the restored sandbox, change nothing in
 * it); `listSnapshots` finds it by label; `deleteSnapshot` removes it for
 * good, after which a launch from it is `NOT_FOUND` and launches nothing.
 */
export function declareSnapshotChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;

  group.check("snapshots.round-trip", async () => {
    const source = group.sandbox();
    await runtime.writeFiles(source, [{ path: "snapshot/state.txt", content: "before" }]);
    const snapshot = await runtime.snapshot!(source, { labels: { [RUN_LABEL]: suite.runId, step: "before" } });
    try {
      assert.equal(snapshot.provider, runtime.provider);
      assert.equal(snapshot.sourceId, source.id);
      assert.ok(["filesystem", "filesystem+memory"].includes(snapshot.contents), `contents ${snapshot.contents}`);
      await runtime.writeFiles(source, [{ path: "snapshot/state.txt", content: "after" }]);
      for (const from of [snapshot, snapshot.id]) {
        const restored = await suite.launch({ from, labels: { [GROUP_LABEL]: "snapshots-restored" } });
        try {
          assert.equal(await readText(runtime, restored, "snapshot/state.txt"), "before", "the files as taken");
          await runtime.writeFiles(restored, [{ path: "snapshot/state.txt", content: "changed in the copy" }]);
        } finally {
          await suite.destroy(restored);
        }
      }
      assert.equal(await readText(runtime, source, "snapshot/state.txt"), "after", "the source is untouched");
      const listed = await runtime.listSnapshots!({ [RUN_LABEL]: suite.runId, step: "before" });
      assert.deepEqual(
        listed.map((found) => found.id),
        [snapshot.id],
        "listSnapshots finds it by label",
      );
    } finally {
      await runtime.deleteSnapshot!(snapshot);
    }
    assert.deepEqual(await runtime.listSnapshots!({ [RUN_LABEL]: suite.runId, step: "before" }), [], "deleted");
    await runtime.deleteSnapshot!(snapshot.id);
    const labels = { [GROUP_LABEL]: "snapshots-deleted" };
    await expectCode(() => suite.launch({ from: snapshot, labels }), "NOT_FOUND", "a launch from a deleted snapshot");
    if (suite.capabilities.labelSearch === true) {
      assert.deepEqual(
        await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, ...labels }),
        [],
        "nothing was launched fresh instead",
      );
    }
  });
}

/**
 * Registers `lifecycle.snapshot-refused`, for runtimes without `snapshot`: a
 * launch from a snapshot is `UNSUPPORTED`, sends nothing and creates nothing,
 * never a fresh sandbox in its place.
 */
export function declareSnapshotRefusalChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const has = suite.capabilities.snapshots === true;
  group.check(
    "lifecycle.snapshot-refused",
    async () => {
      const labels = { [GROUP_LABEL]: "lifecycle-snapshot-refused" };
      const before = suite.requestCount?.();
      await expectCode(
        () => runtime.launch(suite.specFor({ labels, from: "sandport-conformance-snapshot" })),
        "UNSUPPORTED",
        "a launch from a snapshot",
      );
      if (before !== undefined) assert.equal(suite.requestCount?.(), before, "the refusal sent no request");
      if (suite.capabilities.labelSearch === true) {
        assert.deepEqual(await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, ...labels }), []);
      }
    },
    { unavailable: has ? "the runtime has snapshots: snapshots.round-trip launches from one" : undefined },
  );
}
