// Per-call options are checked on every port method before anything is sent, and every
// call ends by its deadline, the SDK's own retries and waits for Retry-After included.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OpOptions } from "@sandport/core";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "runtime-tests" });
const handle = await runtime.launch({ ports: [4200] });

/** Every port method, called with per-call options `op`. */
function everyMethod(op: OpOptions): [string, () => Promise<unknown>][] {
  const ref = { sessionId: "s", commandId: "c" };
  return [
    ["launch", () => runtime.launch({}, op)],
    ["getById", () => runtime.getById(handle.id, op)],
    ["findByLabels", () => runtime.findByLabels({}, op)],
    ["destroy", () => runtime.destroy(handle, op)],
    ["stop", () => runtime.stop(handle, op)],
    ["start", () => runtime.start(handle, op)],
    ["exec", () => runtime.exec(handle, { argv: ["true"] }, op)],
    [
      "execStream",
      () =>
        runtime
          .execStream(handle, { argv: ["true"] }, op)
          [Symbol.asyncIterator]()
          .next(),
    ],
    ["writeFiles", () => runtime.writeFiles(handle, [{ path: "a", content: "" }], op)],
    ["readFile", () => runtime.readFile(handle, "a", op)],
    ["startCommand", () => runtime.startCommand(handle, { sessionId: "s", argv: ["true"] }, op)],
    ["commandStatus", () => runtime.commandStatus(handle, ref, op)],
    ["commandLogs", () => runtime.commandLogs(handle, ref, op)],
    ["portEndpoint", () => runtime.portEndpoint(handle, 4200, op)],
  ];
}

test("a malformed signal or timeoutMs is INVALID_REQUEST on every method, with no request sent", async () => {
  const malformed = [{ signal: {} }, { signal: "abort" }, { timeoutMs: -1 }, { timeoutMs: 1.5 }, "fast"];
  emulator.resetRequests();
  for (const op of malformed) {
    for (const [method, call] of everyMethod(op as OpOptions)) {
      await expectCode(call, "INVALID_REQUEST", `${method}(${JSON.stringify(op)})`);
    }
  }
  assert.equal(emulator.countRequests(), 0);
  assert.equal(emulator.liveSandboxes().length, 1, "nothing was launched");
});

test("an already-aborted signal is ABORTED on every method, with no request sent", async () => {
  const controller = new AbortController();
  controller.abort(new Error("gave up"));
  emulator.resetRequests();
  for (const [method, call] of everyMethod({ signal: controller.signal })) {
    await expectCode(call, "ABORTED", method);
  }
  assert.equal(emulator.countRequests(), 0);
  assert.deepEqual(await runtime.settle(), []);
});

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
