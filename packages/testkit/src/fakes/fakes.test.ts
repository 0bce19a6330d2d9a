import assert from "node:assert/strict";
import { test } from "node:test";
import { localTestRuntime } from "./local-test-runtime.js";
import { withoutMethods } from "./recording-runtime.js";

test("withoutMethods hides the named methods and keeps the rest working, on a runtime with private fields", async () => {
  const local = await localTestRuntime("fakes");
  try {
    const runtime = withoutMethods(local.runtime, ["spawn", "execStream"]);
    assert.equal(typeof runtime.spawn, "undefined");
    assert.equal(typeof runtime.execStream, "undefined");
    assert.equal(runtime.provider, "local");
    const handle = await runtime.launch({});
    try {
      assert.equal((await runtime.exec(handle, { argv: ["echo", "kept"] })).stdout, "kept\n");
    } finally {
      await runtime.destroy(handle);
    }
  } finally {
    local.cleanup();
  }
});
