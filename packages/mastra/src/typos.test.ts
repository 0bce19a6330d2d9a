// Typos in the bridge's options are refused by name, with the nearest known
// option, before anything reaches the runtime.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { createMastraFilesystem } from "./filesystem.js";
import { createMastraSandbox } from "./sandbox.js";

/** Asserts `action` is refused with INVALID_REQUEST whose message matches `pattern`. */
async function refused(action: () => unknown, pattern: RegExp): Promise<void> {
  const error = await expectCode(action, "INVALID_REQUEST", String(pattern));
  assert.match(error.message, pattern);
}

test("createMastraSandbox and createMastraFilesystem refuse an unknown option, naming the nearest, before any runtime call", async () => {
  const runtime = new RecordingRuntime();
  await refused(
    () => createMastraSandbox({ runtime, evn: { A: "1" } } as never),
    /createMastraSandbox options: unknown key "evn" \(did you mean env\?\)/,
  );
  await refused(
    () => createMastraFilesystem({ runtime, handle: { id: "x" }, readonly: true } as never),
    /createMastraFilesystem options: unknown key "readonly" \(did you mean readOnly\?\)/,
  );
  assert.deepEqual(runtime.calls, []);
});
