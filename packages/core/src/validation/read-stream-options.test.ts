// validateReadStreamOptions: maxBytes optional (no default) and any safe integer from 0; the common options; everything else refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_READ_BYTES } from "../errors/error-code.js";
import { SandportError } from "../errors/sandport-error.js";
import { streamLimitExceeded, validateReadStreamOptions } from "./read-stream-options.js";

test("splits maxBytes from the common options; without it the stream has no cap", () => {
  const signal = new AbortController().signal;
  assert.deepEqual(validateReadStreamOptions({ maxBytes: 10, timeoutMs: 5, signal }, "local"), {
    op: { timeoutMs: 5, signal },
    maxBytes: 10,
  });
  assert.deepEqual(validateReadStreamOptions(undefined, "local"), { op: undefined, maxBytes: undefined });
  assert.equal(validateReadStreamOptions({ timeoutMs: 5 }, "local").maxBytes, undefined);
  // Unlike readFile's, a stream's cap is not bounded by what one buffer holds.
  assert.equal(validateReadStreamOptions({ maxBytes: 4 * MAX_READ_BYTES }, "local").maxBytes, 4 * MAX_READ_BYTES);
  assert.equal(validateReadStreamOptions({ maxBytes: 0 }, "local").maxBytes, 0);
});

test("refuses a malformed maxBytes, unknown keys and bad common options with INVALID_REQUEST", () => {
  for (const bad of [
    { maxBytes: -1 },
    { maxBytes: 0.5 },
    { maxBytes: Number.POSITIVE_INFINITY },
    { maxBytes: 2 ** 53 },
    { maxBytes: "10" },
    { maxbytes: 10 },
    { timeoutMs: -1 },
    "x",
  ]) {
    assert.throws(
      () => validateReadStreamOptions(bad, "local"),
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST"),
      JSON.stringify(bad),
    );
  }
});

test("a file past the stream's cap is OUTPUT_LIMIT naming its size and the cap", () => {
  const error = streamLimitExceeded("local", "big.bin", 11, 10);
  assert.equal(error.code, "OUTPUT_LIMIT");
  assert.deepEqual(error.details, { path: "big.bin", size: 11, limit: 10 });
  assert.match(error.message, /"big.bin" is 11 bytes, more than this stream's maxBytes \(10\)/);
});
