// Typos in the bridge's options are refused by name, with the nearest known
// option, before anything reaches the runtime.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { SandportSandboxClient } from "./client.js";
import { SandportSandboxSession } from "./session.js";

/** Asserts `action` is refused with INVALID_REQUEST whose message matches `pattern`. */
async function refused(action: () => unknown, pattern: RegExp): Promise<void> {
  const error = await expectCode(action, "INVALID_REQUEST", String(pattern));
  assert.match(error.message, pattern);
}

test("the client and the session refuse an unknown option, naming it and the nearest known one, before any runtime call", async () => {
  const runtime = new RecordingRuntime();
  await refused(
    () => new SandportSandboxClient({ runtime, launhc: {} } as never),
    /SandportSandboxClient options: unknown key "launhc" \(did you mean launch\?\)/,
  );
  await refused(
    () => new SandportSandboxSession({ runtime, stat: {} } as never),
    /SandportSandboxSession options: unknown key "stat" \(did you mean state\?\)/,
  );
  assert.deepEqual(runtime.calls, []);
});
