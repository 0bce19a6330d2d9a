// The snapshot name that carries what E2B does not keep: owner, source, time and labels.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { MAX_SNAPSHOT_NAME, readSnapshotId, snapshotName } from "./snapshot-name.js";

const record = {
  owner: "ci/Team A",
  sourceId: "i4f2a",
  createdAt: "2026-12-05T07:00:00.123Z",
  labels: { job: "42", ünïcode: "✓ yes" },
};

test("a name round-trips through E2B's snapshot id forms, in E2B's alias alphabet", () => {
  const name = snapshotName(record);
  assert.match(name, /^sp1-[a-z2-7]+$/);
  for (const id of [name, `${name}:default`, `my-team/${name}:default`, `my-team/${name}`]) {
    assert.deepEqual(readSnapshotId(id, record.owner), record, id);
    assert.equal(readSnapshotId(id, "ci/Team B"), undefined, "another owner's reads as not theirs");
  }
});

test("labels too long for a name are refused UNSUPPORTED", async () => {
  const labels = { big: "x".repeat(MAX_SNAPSHOT_NAME - 40) };
  await expectCode(async () => snapshotName({ ...record, labels }), "UNSUPPORTED");
});
