// destroy, stop and start through the real freestyle SDK against the emulator:
// destroy is proven by a 404, an unprovable one is DESTROY_UNVERIFIED, and
// pause/start keep the VM and its files.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const GET = "GET /v5/vms/:id";
const DELETE = "DELETE /v5/vms/:id";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "lifecycle-tests" });
const state = (id: string) => emulator.liveSandboxes().find((vm) => vm.id === id)?.state;

test("destroy deletes, then looks until Freestyle answers 404; again resolves with one lookup", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  await runtime.destroy(handle);
  assert.deepEqual(
    emulator.requests.map((request) => `${request.route} ${request.status}`),
    [`${DELETE} 204`, `${GET} 404`],
  );
  assert.equal(state(handle.id), undefined);
  emulator.resetRequests();
  await runtime.destroy(handle);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [GET],
  );
  await expectCode(runtime.exec(handle, { argv: ["true"] }), "NOT_FOUND");
});

test("a destroy whose result cannot be checked is DESTROY_UNVERIFIED (retryable); destroying again finishes", async () => {
  const handle = await runtime.launch();
  emulator.injectFault({ route: GET, fault: { kind: "status", status: 500 }, times: 100 });
  // Room for the delete itself, which waits for the backend's destroy (seconds on a loaded machine); the rest
  // of the deadline is the verification window the faults use up.
  const error = await expectCode(runtime.destroy(handle, { timeoutMs: 4_000 }), "DESTROY_UNVERIFIED");
  assert.equal(error.retryable, true);
  emulator.clearFaults();
  await runtime.destroy(handle);
});

test("a reattached runtime destroys a VM of ours after checking its marks", async () => {
  const handle = await runtime.launch();
  const other = runtimeWith({});
  emulator.resetRequests();
  await other.destroy(handle);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [GET, DELETE, GET],
  );
  assert.equal(state(handle.id), undefined);
});

test("stop pauses and start resumes: files are kept, and commands run again", async () => {
  const handle = await runtime.launch();
  await runtime.writeFiles(handle, [{ path: "kept.txt", content: "kept" }]);
  await runtime.stop(handle);
  assert.equal(state(handle.id), "paused");
  await runtime.stop(handle);
  await runtime.start(handle);
  assert.equal(state(handle.id), "running");
  assert.equal((await runtime.exec(handle, { argv: ["cat", "kept.txt"] })).stdout, "kept");
  await runtime.destroy(handle);
  await expectCode(runtime.stop(handle), "NOT_FOUND");
  await expectCode(runtime.start(handle), "NOT_FOUND");
});

test("a foreign VM is never deleted, paused or started", async () => {
  const foreign = await emulator.seedForeignSandbox({ team: "other" });
  const handle = { id: foreign, provider: "freestyle" as const, labels: {} };
  emulator.resetRequests();
  await expectCode(runtime.destroy(handle), "FOREIGN_SANDBOX");
  await expectCode(runtime.stop(handle), "FOREIGN_SANDBOX");
  await expectCode(runtime.start(handle), "FOREIGN_SANDBOX");
  assert.equal(emulator.countRequests(/DELETE|pause|start/), 0);
  assert.equal(state(foreign), "running");
});
