// The snapshot name that carries what Daytona does not keep: owner, source, time and labels.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { MAX_SNAPSHOT_NAME, readSnapshotId, snapshotName } from "./snapshot-name.js";

const record = {
  owner: "ci/Team A",
  sourceId: "0f8c7e6a-1b2c-4d5e-8f90-123456789abc",
  createdAt: "2026-12-05T07:00:00.123Z",
  labels: { job: "42", ünïcode: "✓ yes" },
};

test("a name round-trips, in lower-case base32 after its prefix", () => {
  const name = snapshotName(record);
  assert.match(name, /^sp1-[a-z2-7]+$/);
  for (const id of [name]) {
    assert.deepEqual(readSnapshotId(id, record.owner), record, id);
    assert.equal(readSnapshotId(id, "ci/Team B"), undefined, "another owner's reads as not theirs");
  }
});

test("labels too long for a name are refused UNSUPPORTED", async () => {
  const labels = { big: "x".repeat(MAX_SNAPSHOT_NAME - 40) };
  await expectCode(async () => snapshotName({ ...record, labels }), "UNSUPPORTED");
});
