// Typos in the bridge's options are refused by name, with the nearest known
// option, before anything reaches the runtime.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { createDeepAgentsSandbox } from "./sandbox.js";

/** Asserts `action` is refused with INVALID_REQUEST whose message matches `pattern`. */
async function refused(action: () => unknown, pattern: RegExp): Promise<void> {
  const error = await expectCode(action, "INVALID_REQUEST", String(pattern));
  assert.match(error.message, pattern);
}

test("createDeepAgentsSandbox refuses an unknown option, naming it and the nearest known one, before any runtime call", async () => {
  const runtime = new RecordingRuntime();
  const handle = await runtime.launch({});
  runtime.calls.length = 0;
  await refused(
    () => createDeepAgentsSandbox({ runtime, handel: handle } as never),
    /createDeepAgentsSandbox options: unknown key "handel" \(did you mean handle\?\)/,
  );
  await refused(
    () => createDeepAgentsSandbox({ runtime, handle, commandTimeoutMs: "1000" } as never),
    /commandTimeoutMs must be a number, got string "1000"/,
  );
  assert.deepEqual(runtime.calls, []);
});
