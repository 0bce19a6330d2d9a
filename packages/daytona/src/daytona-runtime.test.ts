// Per-call options are checked on every method before anything is sent: a
// malformed signal or timeoutMs is INVALID_REQUEST, an aborted signal ABORTED,
// and no request reaches Daytona. A method's deadline bounds the whole call.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OpOptions } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "runtime-tests" });
const handle = await runtime.launch();

/** Every method of the runtime, called with per-call options `op`. */
function everyMethod(op: OpOptions): [string, () => Promise<unknown>][] {
  const ref = { sessionId: "s", commandId: "c" };
  return [
    ["launch", () => runtime.launch({}, op)],
    ["launchDetached", () => runtime.launchDetached({}, op)],
    ["ready", () => runtime.ready(handle, op)],
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
    ["spawn", () => runtime.spawn(handle, { argv: ["cat"] }, op)],
    ["writeFiles", () => runtime.writeFiles(handle, [{ path: "a", content: "" }], op)],
    ["readFile", () => runtime.readFile(handle, "a", op)],
    ["listDir", () => runtime.listDir(handle, ".", op)],
    ["stat", () => runtime.stat(handle, "a", op)],
    ["mkdir", () => runtime.mkdir(handle, "d", op)],
    ["remove", () => runtime.remove(handle, "a", op)],
    ["startCommand", () => runtime.startCommand(handle, { sessionId: "s", argv: ["true"] }, op)],
    ["commandStatus", () => runtime.commandStatus(handle, ref, op)],
    ["commandLogs", () => runtime.commandLogs(handle, ref, op)],
    ["portEndpoint", () => runtime.portEndpoint(handle, 3000, op)],
    ["sandboxDetails", () => runtime.sandboxDetails(handle, op)],
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

test("a handle of another provider, or with an id that is no sandbox id, is refused before any request", async () => {
  emulator.resetRequests();
  for (const bad of [{ id: "x", provider: "e2b", labels: {} }, { id: "..", provider: "daytona", labels: {} }, {}]) {
    await expectCode(runtime.exec(bad as never, { argv: ["true"] }), "INVALID_REQUEST", JSON.stringify(bad));
    await expectCode(runtime.destroy(bad as never), "INVALID_REQUEST", JSON.stringify(bad));
  }
  await expectCode(runtime.getById("a/b"), "INVALID_REQUEST");
  await expectCode(runtime.portEndpoint(handle, 70_000), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("a method's deadline bounds the whole call: DEADLINE_EXCEEDED, not a hang", async () => {
  emulator.injectFault({ route: "POST /toolbox/:id/files/bulk-download", fault: { kind: "latency", ms: 2_000 } });
  const started = performance.now();
  await expectCode(runtime.readFile(handle, "a", { timeoutMs: 200 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 1_000);
  emulator.clearFaults();
});
