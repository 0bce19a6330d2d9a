import assert from "node:assert/strict";
import { test } from "node:test";
import { chmodFailure } from "./chmod.js";

test("chmodFailure says the files were written, with the script's output or exit code", () => {
  const failed = chmodFailure("fake", "s1", 1, "chmod: cannot access 'x'\n");
  assert.deepEqual([failed.code, failed.provider, failed.retryable], ["UNEXPECTED", "fake", false]);
  assert.equal(failed.message, "fake wrote the files but could not set their modes: chmod: cannot access 'x'");
  assert.deepEqual(failed.details, { sandboxId: "s1", exitCode: 1 });
  assert.match(chmodFailure("fake", "s1", null, " ").message, /exit null$/);
});
