import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { SnapshotRef } from "../port/snapshot.js";
import { validateLaunchSpec } from "./requests.js";
import { validateSnapshotId } from "./snapshot-id.js";
import { validateSnapshotOptions } from "./snapshot-options.js";

const isCode = (code: string) => (error: unknown) => SandportError.hasCode(error, code as never);

const ref: SnapshotRef = {
  id: "snap-1",
  provider: "local",
  createdAt: "2026-12-05T00:00:00.000Z",
  contents: "filesystem",
  labels: {},
  sourceId: "sbx-1",
};

describe("validateSnapshotId", () => {
  test("takes a ref of this provider or an id, and gives the id", () => {
    assert.equal(validateSnapshotId(ref, "from", "local"), "snap-1");
    assert.equal(validateSnapshotId("snap-1", "from", "local"), "snap-1");
    assert.equal(validateSnapshotId(ref, "from"), "snap-1", "no provider to compare with");
  });

  test("refuses another provider's snapshot, naming both", () => {
    assert.throws(
      () => validateSnapshotId(ref, "from", "e2b"),
      (error: unknown) => isCode("INVALID_REQUEST")(error) && /"local", not "e2b"/.test((error as Error).message),
    );
  });

  test("refuses what cannot be an id", () => {
    for (const bad of ["", " ", "a b", "x".repeat(257), 7, null, [], { id: 7, provider: "local" }, "a\u0000"]) {
      assert.throws(() => validateSnapshotId(bad, "from", "local"), isCode("INVALID_REQUEST"), JSON.stringify(bad));
    }
  });
});

describe("LaunchSpec.from", () => {
  test("is validated with the launch and kept as the snapshot's id", () => {
    assert.equal(validateLaunchSpec({ from: ref }, "local").from, "snap-1");
    assert.equal(validateLaunchSpec({ from: "snap-2" }, "local").from, "snap-2");
    assert.equal(validateLaunchSpec({}, "local").from, undefined);
    assert.throws(() => validateLaunchSpec({ from: ref }, "modal"), isCode("INVALID_REQUEST"));
    assert.throws(() => validateLaunchSpec({ from: "" }, "local"), isCode("INVALID_REQUEST"));
  });
});

describe("validateSnapshotOptions", () => {
  test("splits labels from the common options", () => {
    const signal = new AbortController().signal;
    const { op, labels } = validateSnapshotOptions({ labels: { step: "1" }, timeoutMs: 5, signal }, "local");
    assert.deepEqual(labels, { step: "1" });
    assert.deepEqual(op, { timeoutMs: 5, signal });
    assert.deepEqual(validateSnapshotOptions(undefined, "local"), { op: undefined, labels: {} });
  });

  test("refuses reserved labels, unknown keys and bad common options", () => {
    for (const bad of [
      { labels: { "sandport.owner": "x" } },
      { labels: "x" },
      { label: { a: "b" } },
      { timeoutMs: -1 },
      "x",
    ]) {
      assert.throws(() => validateSnapshotOptions(bad, "local"), isCode("INVALID_REQUEST"), JSON.stringify(bad));
    }
  });
});
