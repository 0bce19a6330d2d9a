// The snapshot-name codec for providers that keep nothing beside a snapshot's name.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { decodeSnapshotName, encodeSnapshotName } from "./snapshot-names.js";

const record = {
  owner: "ci/Team A",
  sourceId: "sbx-1",
  createdAt: "2026-12-05T07:00:00.123Z",
  labels: { job: "42", ünïcode: "✓ yes", empty: "" },
};
const naming = { provider: "example", maxLength: 200, reason: "Example keeps nothing on a snapshot" };

test("a name carries owner, source, time (to the millisecond) and labels, in lower-case base32", () => {
  const name = encodeSnapshotName(record, naming);
  assert.match(name, /^sp1-[a-z2-7]+$/);
  assert.deepEqual(decodeSnapshotName(name, record.owner), record);
  assert.deepEqual(decodeSnapshotName(encodeSnapshotName({ ...record, labels: {} }, naming), record.owner), {
    ...record,
    labels: {},
  });
});

test("another owner's names, and names this codec never gave, read as nobody's", () => {
  assert.equal(decodeSnapshotName(encodeSnapshotName(record, naming), "ci/Team B"), undefined);
  for (const name of ["base", "checkpoint", "sp1-0189", "sp1-mfrgg", "sp1-", "SP1-MFRGG"]) {
    assert.equal(decodeSnapshotName(name, record.owner), undefined, name);
  }
});

test("labels that make the name too long are refused UNSUPPORTED, naming the provider and the reason", () => {
  const labels = { big: "x".repeat(naming.maxLength) };
  assert.throws(
    () => encodeSnapshotName({ ...record, labels }, naming),
    (error) =>
      SandportError.hasCode(error, "UNSUPPORTED") &&
      error.provider === "example" &&
      /Example keeps nothing on a snapshot/.test(error.message),
  );
});
