// Typos in the bridge's options are refused by name, with the nearest known
// option, before anything reaches the runtime.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { SandportSandboxAdapter } from "./adapter.js";

/** Asserts `action` is refused with INVALID_REQUEST whose message matches `pattern`. */
async function refused(action: () => unknown, pattern: RegExp): Promise<void> {
  const error = await expectCode(action, "INVALID_REQUEST", String(pattern));
  assert.match(error.message, pattern);
}

test("SandportSandboxAdapter refuses an unknown option, naming it and the nearest known one, before any runtime call", async () => {
  const runtime = new RecordingRuntime();
  await refused(
    () => new SandportSandboxAdapter({ runtime, tunelPort: 5 } as never),
    /SandportSandboxAdapter options: unknown key "tunelPort" \(did you mean tunnelPort\?\)/,
  );
  assert.deepEqual(runtime.calls, []);
});
