import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "./cli-error.js";
import { formatDuration, parseDuration } from "./duration.js";

test("parseDuration reads units and sums of units", () => {
  assert.equal(parseDuration("0", "--x"), 0);
  assert.equal(parseDuration("0s", "--x"), 0);
  assert.equal(parseDuration("500ms", "--x"), 500);
  assert.equal(parseDuration("1.5s", "--x"), 1_500);
  assert.equal(parseDuration("10m", "--x"), 600_000);
  assert.equal(parseDuration("1h30m", "--x"), 5_400_000);
  assert.equal(parseDuration("2d", "--x"), 172_800_000);
});

test("parseDuration refuses anything else, naming the flag", () => {
  for (const text of ["", "10", "5 m", "1x", "m", "1h-5m", "-1s"]) {
    assert.throws(
      () => parseDuration(text, "--older-than"),
      (error: unknown) => error instanceof CliError && error.code === "USAGE" && /--older-than/.test(error.message),
      text,
    );
  }
});

test("formatDuration is short and readable at every scale", () => {
  assert.deepEqual([850, 12_340, 245_000, 7_800_000, 280_000_000].map(formatDuration), [
    "850ms",
    "12.3s",
    "4m05s",
    "2h10m",
    "3d5h",
  ]);
});
