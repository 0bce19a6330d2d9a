// The runtime's shape, and per-call deadlines. (A malformed or aborted per-call
// option on every method is the conformance suite's port.op-options and
// lifecycle.aborted-calls, with the emulator's request count.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import { agent37Capabilities } from "./capabilities.js";

const { emulator, runtime } = await emulated({ owner: "runtime-tests" });
const handle = await runtime.launch();

test("the runtime has exactly the methods its capabilities claim", () => {
  for (const method of ["execStream", "spawn", "startCommand", "launchDetached", "fork"]) {
    assert.equal(method in runtime, false, `${method} is absent`);
  }
  assert.equal(typeof runtime.portEndpoint, "function");
  assert.deepEqual(Object.keys(agent37Capabilities.absent ?? {}).sort(), [
    "asyncExec",
    "detachedLaunch",
    "fork",
    "interactive",
    "streaming",
  ]);
});

test("a method's deadline bounds the whole call: DEADLINE_EXCEEDED, not a hang", async () => {
  await runtime.writeFiles(handle, [{ path: "a", content: "x" }]);
  emulator.injectFault({ route: "GET /edge/:id/v1/files/content", fault: { kind: "latency", ms: 2_000 } });
  const started = performance.now();
  await expectCode(runtime.readFile(handle, "a", { timeoutMs: 200 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 1_000);
  emulator.injectFault({ route: "GET /v1/instances", fault: { kind: "latency", ms: 2_000 } });
  await expectCode(runtime.findByLabels({}, { timeoutMs: 200 }), "DEADLINE_EXCEEDED");
  emulator.clearFaults();
  await runtime.destroy(handle);
});
