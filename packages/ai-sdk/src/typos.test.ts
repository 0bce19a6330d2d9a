// Typos in the bridge's options are refused by name, with the nearest known
// option, before anything reaches the runtime.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { createBashToolSandbox } from "./bash-tool-sandbox.js";
import { createHarnessSandboxProvider } from "./harness-provider.js";
import { createSandboxSession } from "./session.js";

/** Asserts `action` is refused with INVALID_REQUEST whose message matches `pattern`. */
async function refused(action: () => unknown, pattern: RegExp): Promise<void> {
  const error = await expectCode(action, "INVALID_REQUEST", String(pattern));
  assert.match(error.message, pattern);
}

test("every entry point refuses an unknown option, naming it and the nearest known one, before any runtime call", async () => {
  const runtime = new RecordingRuntime();
  const handle = await runtime.launch({});
  runtime.calls.length = 0;
  await refused(
    () => createSandboxSession({ runtime, handle, workingDirectroy: "app" } as never),
    /createSandboxSession options: unknown key "workingDirectroy" \(did you mean workingDirectory\?\)/,
  );
  await refused(
    () => createBashToolSandbox({ runtime, handle, commandTimeoutMS: 5 } as never),
    /createBashToolSandbox options: unknown key "commandTimeoutMS" \(did you mean commandTimeoutMs\?\)/,
  );
  await refused(
    () => createHarnessSandboxProvider({ runtime, lanch: {} } as never),
    /createHarnessSandboxProvider options: unknown key "lanch" \(did you mean launch\?\)/,
  );
  await refused(
    () => createSandboxSession({ runtime, handle, commandTimeoutMs: "1000" } as never),
    /commandTimeoutMs must be a number, got string "1000"/,
  );
  assert.deepEqual(runtime.calls, []);
  createSandboxSession({ runtime, handle, workingDirectory: "app", commandTimeoutMs: 5, description: "d" });
});
