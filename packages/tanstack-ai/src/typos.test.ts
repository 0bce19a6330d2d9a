// Typos in the provider's options are refused by name, with the nearest known option, before anything
// reaches the runtime.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { sandportSandboxProvider } from "./provider.js";

test("sandportSandboxProvider refuses an unknown option, naming the nearest, and a bad timeout, before any runtime call", async () => {
  const runtime = new RecordingRuntime();
  const refused = async (options: unknown, pattern: RegExp) => {
    const error = await expectCode(() => sandportSandboxProvider(options as never), "INVALID_REQUEST", String(pattern));
    assert.match(error.message, pattern);
  };
  await refused(
    { runtime, lauch: { labels: {} } },
    /sandportSandboxProvider options: unknown key "lauch" \(did you mean launch\?\)/,
  );
  await refused({ runtime, commandTimeoutMs: "1000" }, /commandTimeoutMs must be a number/);
  await refused({}, /runtime must be a Sandport runtime/);
  assert.deepEqual(runtime.calls, []);
});

test("create refuses an empty id before anything is launched", async () => {
  const runtime = new RecordingRuntime();
  await expectCode(() => sandportSandboxProvider({ runtime }).create({ id: "" }), "INVALID_REQUEST");
  assert.deepEqual(runtime.calls, []);
});
