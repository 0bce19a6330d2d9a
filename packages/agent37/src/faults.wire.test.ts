// Agent37's failures over real fetch, against the emulator: provisioning_failed
// (the service's own exec cap, and an injected one) is never repeated, a 429's
// Retry-After reaches the error, a refused list page is read again, and no
// instance is left behind.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const EXEC_ROUTE = "POST /v1/instances/:id/exec";
const { emulator, runtime } = await emulated({ owner: "faults" }, { execCapMs: 1_500 });

describe("provisioning_failed is never retried", () => {
  test("a command past the service's exec cap: one send, it ran once, an outcomeUnknown error", async () => {
    const handle = await runtime.launch();
    const token = `capped-${Date.now()}`;
    const error = await runtime.exec(handle, { shell: `echo ${token} >> runs.txt; sleep 5` }).then(
      () => assert.fail("the exec resolved"),
      (thrown: unknown) => thrown,
    );
    assert.ok(SandportError.isInstance(error), String(error));
    assert.equal(error.code, "PROVIDER_UNAVAILABLE");
    assert.equal(error.retryable, false);
    assert.equal(error.details.outcomeUnknown, true);
    assert.match(error.message, /provisioning_failed/);
    assert.equal(emulator.executed.filter((command) => command.includes(token)).length, 1, "sent once");
    const runs = await runtime.exec(handle, { argv: ["cat", "runs.txt"] });
    assert.equal(runs.stdout, `${token}\n`, "the command ran exactly once");
    await runtime.destroy(handle);
    assert.deepEqual(await runtime.settle(), []);
  });

  test("an injected 502 provisioning_failed: the request is not repeated", async () => {
    const handle = await runtime.launch();
    emulator.resetRequests();
    const since = emulator.executed.length;
    const token = `injected-${Date.now()}`;
    emulator.injectFault({ route: EXEC_ROUTE, fault: { kind: "status", status: 502 } });
    const error = await runtime.exec(handle, { shell: `echo ${token}` }).then(
      () => assert.fail("the exec resolved"),
      (thrown: unknown) => thrown,
    );
    assert.ok(SandportError.isInstance(error));
    assert.equal(error.retryable, false);
    assert.equal(error.details.outcomeUnknown, true);
    // The faulted request never reached the handler; every other exec request is the kill's sweep.
    const sweeps = emulator.executed.slice(since).filter((command) => !command.includes(token)).length;
    assert.equal(emulator.countRequests(EXEC_ROUTE) - sweeps, 1, "the command was sent once");
    assert.equal(emulator.executed.filter((command) => command.includes(token)).length, 0);
    await runtime.destroy(handle);
  });
});

describe("refusals", () => {
  test("429 with Retry-After on create: RATE_LIMITED carrying the wait, nothing left", async () => {
    emulator.resetRequests();
    emulator.injectFault({ route: "POST /v1/instances", fault: { kind: "status", status: 429, retryAfterSeconds: 7 } });
    const error = await expectCode(runtime.launch({ labels: { case: "429" } }), "RATE_LIMITED");
    assert.equal(error.retryAfterMs, 7_000);
    assert.equal(emulator.countRequests("POST /v1/instances"), 1);
    assert.deepEqual(await runtime.settle(), []);
    assert.deepEqual(await runtime.findByLabels({ case: "429" }), []);
  });

  test("a 503 no_capacity on the list is read again; a 5xx on exec is not repeated", async () => {
    const handle = await runtime.launch({ labels: { case: "503" } });
    emulator.resetRequests();
    emulator.injectFault({ route: "GET /v1/instances", fault: { kind: "status", status: 503 } });
    assert.deepEqual(
      (await runtime.findByLabels({ case: "503" })).map((found) => found.id),
      [handle.id],
    );
    assert.equal(emulator.countRequests("GET /v1/instances"), 2);
    emulator.injectFault({ route: EXEC_ROUTE, fault: { kind: "status", status: 500 } });
    const before = emulator.countRequests(EXEC_ROUTE);
    const since = emulator.executed.length;
    await expectCode(runtime.exec(handle, { argv: ["true"] }), "PROVIDER_UNAVAILABLE");
    const sweeps = emulator.executed.length - since;
    assert.ok(emulator.countRequests(EXEC_ROUTE) - before - sweeps <= 1, "the command was not sent again");
    await runtime.destroy(handle);
  });

  test("a refused file write is sent again (a whole-file PUT is safe to repeat)", async () => {
    const handle = await runtime.launch();
    emulator.resetRequests();
    emulator.injectFault({ route: "PUT /edge/:id/v1/files/content", fault: { kind: "status", status: 503 } });
    await runtime.writeFiles(handle, [{ path: "again.txt", content: "again" }]);
    assert.equal(emulator.countRequests("PUT /edge/:id/v1/files/content"), 2);
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "again.txt")), "again");
    await runtime.destroy(handle);
  });

  test("no instance of ours is left", async () => {
    await runtime.settle();
    await waitFor(() => emulator.liveSandboxes().filter((sandbox) => !sandbox.foreign).length === 0, {
      what: "every instance of ours deleted",
    });
  });
});
