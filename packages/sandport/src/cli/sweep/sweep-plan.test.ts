import assert from "node:assert/strict";
import { test } from "node:test";
import { planSweep } from "./sweep-plan.js";

test("a sandbox is destroyed at or past the age, kept when younger, kept when its age is unknown", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  const handle = (id: string, createdAt?: string) => ({
    id,
    provider: "p",
    labels: {},
    ...(createdAt ? { createdAt } : {}),
  });
  const plan = planSweep(
    [
      handle("old", "2026-12-01T10:00:00Z"),
      handle("edge", "2026-12-01T11:00:00Z"),
      handle("young", "2026-12-01T11:59:00Z"),
      handle("unknown"),
      handle("garbled", "yesterday"),
    ],
    3_600_000,
    now,
  );
  assert.deepEqual(
    plan.map((item) => [item.handle.id, item.action, item.ageMs]),
    [
      ["old", "destroy", 7_200_000],
      ["edge", "destroy", 3_600_000],
      ["young", "keep-young", 60_000],
      ["unknown", "keep-age-unknown", undefined],
      ["garbled", "keep-age-unknown", undefined],
    ],
  );
});
