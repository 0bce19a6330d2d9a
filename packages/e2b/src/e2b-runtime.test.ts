// Per-call options are checked on every port method before anything is sent:
// a malformed signal or timeoutMs is INVALID_REQUEST and no request reaches E2B.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OpOptions } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "runtime-tests" });
const handle = await runtime.launch();

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
    ["listDir", () => runtime.listDir(handle, ".", op)],
    ["stat", () => runtime.stat(handle, "a", op)],
    ["mkdir", () => runtime.mkdir(handle, "d", op)],
    ["remove", () => runtime.remove(handle, "a", op)],
    ["startCommand", () => runtime.startCommand(handle, { sessionId: "s", argv: ["true"] }, op)],
    ["commandStatus", () => runtime.commandStatus(handle, ref, op)],
    ["commandLogs", () => runtime.commandLogs(handle, ref, op)],
    ["spawn", () => runtime.spawn(handle, { argv: ["cat"] }, op)],
    ["portEndpoint", () => runtime.portEndpoint(handle, 8080, op)],
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
  // The answer would take 30 s; the 200 ms deadline ends the call long before (the margin absorbs a loaded machine).
  emulator.injectFault({ route: "GET /files", fault: { kind: "latency", ms: 30_000 } });
  const started = performance.now();
  await expectCode(runtime.readFile(handle, "a", { timeoutMs: 200 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 10_000);
  emulator.clearFaults();
});
