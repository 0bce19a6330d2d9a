// A method's deadline bounds the whole call, and reaches the SDK's
// control-plane calls themselves. (That per-call options are checked on every
// method before anything is sent is the conformance suite's port.op-options
// and lifecycle.aborted-calls, with the emulator's request count.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "runtime-tests" });

test("a method's deadline bounds the whole call, control-plane and router calls alike", async () => {
  const fresh = await runtime.launch();
  emulator.injectFault({ route: /SandboxTagsGetV2$/, fault: { kind: "latency", ms: 2_000 } });
  let started = performance.now();
  await expectCode(runtime.findByLabels({}, { timeoutMs: 300 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 1_000);
  emulator.clearFaults();
  emulator.injectFault({ route: /TaskExecWait$/, fault: { kind: "latency", ms: 2_000 } });
  started = performance.now();
  await expectCode(runtime.readFile(fresh, "a", { timeoutMs: 300 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 1_000);
  emulator.clearFaults();
  await runtime.destroy(fresh);
});

test("the deadline reaches the control-plane call itself: the hung request is cancelled, not abandoned", async () => {
  const listed = await runtime.launch();
  emulator.injectFault({ route: /SandboxTagsGetV2$/, fault: { kind: "latency", ms: 1_000 } });
  emulator.resetRequests();
  await expectCode(runtime.findByLabels({}, { timeoutMs: 300 }), "DEADLINE_EXCEEDED");
  // Left alone, the delayed call would be answered (200) after its second; cancelled, it never is.
  await new Promise((resolve) => setTimeout(resolve, 1_300));
  const tags = emulator.requests.filter((request) => request.route.endsWith("SandboxTagsGetV2"));
  assert.ok(tags.length >= 1);
  assert.deepEqual(
    tags.map((request) => request.status),
    tags.map(() => 0),
    "the server saw the call cancelled",
  );
  await runtime.destroy(listed);
});
