import assert from "node:assert/strict";
import { test } from "node:test";
import { chmodFailure, chmodScript, modeChanges } from "./chmod.js";

test("modeChanges groups the files that asked for a mode other than the written one", () => {
  const files = [{ mode: 0o755 }, {}, { mode: 0o644 }, { mode: 0o600 }, { mode: 0o755 }];
  const validated = [
    { path: "a.sh", mode: 0o755 },
    { path: "b.txt", mode: 0o644 },
    { path: "c.txt", mode: 0o644 },
    { path: "d key", mode: 0o600 },
    { path: "e.sh", mode: 0o755 },
  ];
  const modes = modeChanges(files, validated);
  assert.deepEqual(
    [...modes],
    [
      [0o755, ["a.sh", "e.sh"]],
      [0o600, ["d key"]],
    ],
  );
  assert.equal(chmodScript(modes), "chmod 0755 -- a.sh e.sh && chmod 0600 -- 'd key'");
  assert.deepEqual(
    [...modeChanges(files, validated, 0o755)],
    [
      [0o644, ["c.txt"]],
      [0o600, ["d key"]],
    ],
  );
});

test("chmodFailure says the files were written, with the script's output or exit code", () => {
  const failed = chmodFailure("fake", "s1", 1, "chmod: cannot access 'x'\n");
  assert.deepEqual([failed.code, failed.provider, failed.retryable], ["UNEXPECTED", "fake", false]);
  assert.equal(failed.message, "fake wrote the files but could not set their modes: chmod: cannot access 'x'");
  assert.deepEqual(failed.details, { sandboxId: "s1", exitCode: 1 });
  assert.match(chmodFailure("fake", "s1", null, " ").message, /exit null$/);
});
