// validateForkOptions: labels in place of the source's, or none; the common options; everything else refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { validateForkOptions } from "./fork-options.js";

test("splits labels from the common options; without labels the source's are kept (undefined)", () => {
  const signal = new AbortController().signal;
  const { op, labels } = validateForkOptions({ labels: { step: "1" }, timeoutMs: 5, signal }, "local");
  assert.deepEqual(labels, { step: "1" });
  assert.deepEqual(op, { timeoutMs: 5, signal });
  assert.deepEqual(validateForkOptions(undefined, "local"), { op: undefined, labels: undefined });
  assert.equal(validateForkOptions({ timeoutMs: 5 }, "local").labels, undefined);
});

test("refuses reserved labels, unknown keys and bad common options with INVALID_REQUEST", () => {
  for (const bad of [
    { labels: { "sandport.owner": "x" } },
    { labels: { "sandport.launch-key": "k" } },
    { labels: "x" },
    { launchKey: "k" },
    { timeoutMs: -1 },
    "x",
  ]) {
    assert.throws(
      () => validateForkOptions(bad, "local"),
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST"),
      JSON.stringify(bad),
    );
  }
});
