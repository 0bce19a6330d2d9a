import assert from "node:assert/strict";
import { test } from "node:test";
import { exitStatus, KILLED_EXIT_STATUS, TIMED_OUT_EXIT_STATUS } from "./exit-status.js";

test("exitStatus keeps a real exit code, even when the command also timed out", () => {
  assert.equal(exitStatus({ exitCode: 0, timedOut: false }), 0);
  assert.equal(exitStatus({ exitCode: 3, timedOut: true }), 3);
});

test("exitStatus maps a killed command to 124 when it timed out, else 137", () => {
  assert.equal(exitStatus({ exitCode: null, timedOut: true }), TIMED_OUT_EXIT_STATUS);
  assert.equal(exitStatus({ exitCode: null, timedOut: false }), KILLED_EXIT_STATUS);
  assert.deepEqual([TIMED_OUT_EXIT_STATUS, KILLED_EXIT_STATUS], [124, 137]);
});
