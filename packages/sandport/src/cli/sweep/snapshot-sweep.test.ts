import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError, type SnapshotRef } from "@sandport/core";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { deleteSnapshotVerified, planSnapshotSweep, requireSnapshots } from "./snapshot-sweep.js";

const ref = (id: string, createdAt: string): SnapshotRef => ({
  id,
  provider: "p",
  createdAt,
  contents: "filesystem",
  labels: {},
  sourceId: "sbx",
});

test("a runtime without listSnapshots and deleteSnapshot is refused UNSUPPORTED, naming the flag", () => {
  assert.throws(
    () => requireSnapshots(new RecordingRuntime()),
    (error: unknown) => SandportError.hasCode(error, "UNSUPPORTED") && /sweep --snapshots/.test(error.message),
  );
});

test("snapshots are planned by age like sandboxes; a delete the listing contradicts is unverified", async () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  const listed = [ref("old", "2026-12-01T10:00:00Z"), ref("young", "2026-12-01T11:59:00Z"), ref("odd", "soon")];
  const runtime = {
    listSnapshots: async () => listed,
    deleteSnapshot: async (snapshot: SnapshotRef | string) => {
      if (typeof snapshot !== "string" && snapshot.id === "young") throw new Error("refused");
    },
  };
  const signal = new AbortController().signal;
  const plan = await planSnapshotSweep(runtime, {}, 3_600_000, now, signal);
  assert.deepEqual(
    plan.map((item) => [item.snapshot.id, item.action, item.ageMs]),
    [
      ["old", "destroy", 7_200_000],
      ["young", "keep-young", 60_000],
      ["odd", "keep-age-unknown", undefined],
    ],
  );
  assert.deepEqual(await deleteSnapshotVerified(runtime, listed[0]!, signal), {
    outcome: "unverified",
    reason: "the owner's listing still has it",
  });
  assert.deepEqual(await deleteSnapshotVerified(runtime, listed[1]!, signal), { outcome: "failed", reason: "refused" });
  listed.shift();
  assert.deepEqual(await deleteSnapshotVerified(runtime, ref("old", "2026-12-01T10:00:00Z"), signal), {
    outcome: "deleted",
  });
});
