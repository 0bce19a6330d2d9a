// Mastra's named checkpoints over the port's snapshots, on a real LocalRuntime: snapshot() persists the
// sandbox as its checkpoint and a fresh sandbox with that checkpointName starts from it, as Mastra's
// LocalSandbox seeds an empty working directory; a runtime without snapshots refuses checkpoint names.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SandboxUnsupportedFeatureError } from "@mastra/core/workspace";
import { type LocalTestRuntime, localTestRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { CHECKPOINT_LABEL } from "./checkpoints.js";
import { createMastraSandbox } from "./sandbox.js";

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("mastra-checkpoints");
});
after(() => local.cleanup());

const cat = async (sandbox: Awaited<ReturnType<typeof createMastraSandbox>>, path: string) =>
  (await sandbox.executeCommand?.("cat", [path]))?.stdout;

test("snapshot() persists the checkpoint; a fresh sandbox with that checkpointName starts from it, as taken", async () => {
  const first = await createMastraSandbox({ runtime: local.runtime, id: "cp-first", checkpointName: "warm" });
  assert.equal(first.supportsCheckpoints, true);
  await first.start?.();
  await first.writeFiles?.([{ path: "state.txt", content: "taken" }]);
  await first.snapshot?.();
  await first.writeFiles?.([{ path: "state.txt", content: "changed" }]);
  await first.destroy?.();

  const second = await createMastraSandbox({ runtime: local.runtime, id: "cp-second", checkpointName: "warm" });
  await second.start?.();
  try {
    assert.equal(await cat(second, "state.txt"), "taken");
    await second.writeFiles?.([{ path: "more.txt", content: "more" }]);
    await second.snapshot?.();
    const kept = await local.runtime.listSnapshots({ [CHECKPOINT_LABEL]: "warm" });
    assert.equal(kept.length, 1, "a new checkpoint replaces the older one");
    assert.equal(kept[0]?.sourceId, (await second.sandboxHandle()).id);

    // A new checkpoint name with none yet starts from the seed, and persists to its own name.
    const seeded = await createMastraSandbox({
      runtime: local.runtime,
      id: "cp-seeded",
      checkpointName: "session-1",
      seedCheckpointName: "warm",
    });
    await seeded.start?.();
    assert.equal(await cat(seeded, "more.txt"), "more");
    await seeded.snapshot?.();
    assert.equal((await local.runtime.listSnapshots({ [CHECKPOINT_LABEL]: "session-1" })).length, 1);
    assert.equal((await local.runtime.listSnapshots({ [CHECKPOINT_LABEL]: "warm" }))[0]?.id, kept[0]?.id);
    await seeded.destroy?.();
  } finally {
    await second.destroy?.();
    for (const snapshot of await local.runtime.listSnapshots({})) await local.runtime.deleteSnapshot(snapshot);
  }
});

test("a runtime without snapshots refuses checkpoint names with Mastra's unsupported error and has no checkpoints", async () => {
  const runtime = withoutMethods(local.runtime, ["snapshot", "listSnapshots", "deleteSnapshot"]);
  await assert.rejects(
    createMastraSandbox({ runtime, id: "cp-refused", checkpointName: "warm" }),
    (error: unknown) => error instanceof SandboxUnsupportedFeatureError && /no snapshots/.test(error.message),
  );
  const plain = await createMastraSandbox({ runtime, id: "cp-plain" });
  assert.equal(plain.supportsCheckpoints, false);
  assert.deepEqual(await local.runtime.findByLabels({ "mastra/sandbox-id": "cp-refused" }), [], "nothing launched");
});
