// Every call ends by its deadline, the SDK's own retries and waits for Retry-After included
// (the conformance suite checks per-call options and aborted signals on every method).
import assert from "node:assert/strict";
import { test } from "node:test";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "runtime-tests" });
const handle = await runtime.launch({ ports: [4200] });

test("a method's deadline bounds the whole call: DEADLINE_EXCEEDED, not a hang", async () => {
  emulator.injectFault({ route: /fs\/read$/, fault: { kind: "latency", ms: 2_000 } });
  const started = performance.now();
  await expectCode(runtime.readFile(handle, "a", { timeoutMs: 200 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 1_000);
});

test("the deadline bounds the SDK's own retries: no request is sent after it, however long Retry-After says", async () => {
  emulator.resetRequests();
  emulator.injectFault({
    route: "GET /v2/sandboxes",
    fault: { kind: "status", status: 429, retryAfterSeconds: 15 },
    times: 10,
  });
  const started = performance.now();
  await expectCode(runtime.findByLabels({}, { timeoutMs: 300 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 1_000, "the call ended at its deadline");
  await delay(1_500);
  assert.equal(emulator.countRequests(), 1, "the SDK's retry waited for Retry-After and never sent another");
  emulator.clearFaults();
  emulator.resetRequests();
  emulator.injectFault({ route: "GET /v2/sandboxes", fault: { kind: "status", status: 503 }, times: 100 });
  await expectCode(runtime.findByLabels({}, { timeoutMs: 1_000 }), "DEADLINE_EXCEEDED");
  const sent = emulator.countRequests();
  await delay(2_000);
  assert.equal(emulator.countRequests(), sent, "nothing after the deadline");
});
