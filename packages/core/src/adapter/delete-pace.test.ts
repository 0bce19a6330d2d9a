import assert from "node:assert/strict";
import { test } from "node:test";
import { DeletePace } from "./delete-pace.js";

test("a delete pace starts at its initial estimate, within its bounds", () => {
  assert.equal(new DeletePace({ initialMs: 250 }).firstLookMs(), 250);
  assert.equal(new DeletePace({ initialMs: 10, minMs: 50 }).firstLookMs(), 50);
  assert.equal(new DeletePace({ initialMs: 9_000, maxMs: 5_000 }).firstLookMs(), 5_000);
});

test("a first look that sufficed lowers the estimate a little; a delete that needed more raises it to what was seen", () => {
  const pace = new DeletePace({ initialMs: 1_000 });
  pace.observe(1_000, true);
  assert.equal(pace.firstLookMs(), 900);
  pace.observe(1_650, false);
  assert.equal(pace.firstLookMs(), 1_650);
  pace.observe(60_000, false);
  assert.equal(pace.firstLookMs(), 5_000, "never past maxMs");
  for (let i = 0; i < 100; i += 1) pace.observe(1, true);
  assert.equal(pace.firstLookMs(), 50, "never below minMs");
});
