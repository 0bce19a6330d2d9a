// Per-call options are checked on every port method before anything is sent:
// a malformed signal or timeoutMs is INVALID_REQUEST, an aborted signal is
// ABORTED, and no request reaches Modal. A method's deadline bounds the whole call.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OpOptions } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "runtime-tests" });
const handle = await runtime.launch({ ports: [18_950] });

/** Every port method, called with per-call options `op`. */
function everyMethod(op: OpOptions): [string, () => Promise<unknown>][] {
  return [
    ["launch", () => runtime.launch({}, op)],
    ["getById", () => runtime.getById(handle.id, op)],
    ["findByLabels", () => runtime.findByLabels({}, op)],
    ["destroy", () => runtime.destroy(handle, op)],
    ["exec", () => runtime.exec(handle, { argv: ["true"] }, op)],
    [
      "execStream",
      () =>
        runtime
          .execStream(handle, { argv: ["true"] }, op)
          [Symbol.asyncIterator]()
          .next(),
    ],
    ["spawn", () => runtime.spawn(handle, { argv: ["true"] }, op)],
    ["writeFiles", () => runtime.writeFiles(handle, [{ path: "a", content: "" }], op)],
    ["readFile", () => runtime.readFile(handle, "a", op)],
    ["listDir", () => runtime.listDir(handle, ".", op)],
    ["stat", () => runtime.stat(handle, "a", op)],
    ["mkdir", () => runtime.mkdir(handle, "d", op)],
    ["remove", () => runtime.remove(handle, "a", op)],
    ["portEndpoint", () => runtime.portEndpoint(handle, 18_950, op)],
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
});
