// destroy, stop and start through the real e2b SDK against the E2B emulator:
// verified destroy, foreign sandboxes left alone, pause and resume.
import assert from "node:assert/strict";
import { test } from "node:test";
import { assertCapabilitiesConsistent, resolveCapabilities } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { Sandbox } from "e2b";
import { emulated } from "../test/emulated.js";
import type { E2BHandle } from "./handle.js";

const GET = "GET /sandboxes/:id";
const DELETE = "DELETE /sandboxes/:id";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "lifecycle-tests", lifetimeMs: 120_000 });

const stateOf = (id: string) => emulator.liveSandboxes().find((sandbox) => sandbox.id === id)?.state;

test("destroy deletes, then verifies absence; destroying again resolves", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  await runtime.destroy(handle);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [DELETE, GET],
    "one DELETE and one lookup that proves absence",
  );
  assert.equal(stateOf(handle.id), undefined);
  await runtime.destroy(handle);
  await runtimeWith({}).destroy(handle);
  await expectCode(runtime.exec(handle, { argv: ["true"] }), "NOT_FOUND");
  await expectCode(runtime.readFile(handle, "a.txt"), "NOT_FOUND");
  await expectCode(runtime.stop(handle), "NOT_FOUND");
});

test("a destroy that cannot prove absence rejects DESTROY_UNVERIFIED; a second destroy finishes it", async () => {
  const handle = await runtime.launch();
  emulator.injectFault({ route: GET, fault: { kind: "status", status: 500 }, times: 100 });
  // Room for the delete itself, which waits for the backend's destroy (seconds on a loaded machine); the rest
  // of the deadline is the verification window the faults use up.
  const error = await expectCode(runtime.destroy(handle, { timeoutMs: 4_000 }), "DESTROY_UNVERIFIED");
  assert.equal(error.retryable, true);
  assert.equal(error.details.sandboxId, handle.id);
  assert.ok(emulator.countRequests(GET) >= 2, "the check was repeated until the deadline");
  emulator.clearFaults();
  await runtime.destroy(handle);
});

test("destroy maps a failed DELETE (retryable) and never touches a foreign sandbox", async () => {
  const handle = await runtime.launch();
  emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 503 } });
  const error = await expectCode(runtime.destroy(handle), "PROVIDER_UNAVAILABLE");
  assert.equal(error.retryable, true);
  await runtime.destroy(handle);
  const foreign = await emulator.seedForeignSandbox();
  const forged: E2BHandle = { id: foreign, provider: "e2b", labels: {} };
  emulator.resetRequests();
  await expectCode(runtime.destroy(forged), "FOREIGN_SANDBOX");
  await expectCode(runtime.stop(forged), "FOREIGN_SANDBOX");
  await expectCode(runtime.exec(forged, { argv: ["true"] }), "FOREIGN_SANDBOX");
  assert.equal(stateOf(foreign), "running", "the foreign sandbox survives");
  assert.equal(emulator.countRequests(/DELETE|pause|connect|rpc /), 0);
  emulator.resetRequests();
  await expectCode(runtime.destroy({ id: "x", provider: "local", labels: {} } as never), "INVALID_REQUEST");
  await expectCode(runtime.destroy({ id: "../x", provider: "e2b", labels: {} }), "INVALID_REQUEST");
  await expectCode(runtime.destroy(null as never), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("stop pauses and start resumes (connect) with the configured lifetime", async () => {
  const handle = await runtime.launch();
  await runtime.stop(handle);
  assert.equal(stateOf(handle.id), "paused");
  await runtime.stop(handle);
  await runtime.start(handle);
  assert.equal(stateOf(handle.id), "running");
  const info = await Sandbox.getInfo(handle.id, emulator.sdkOptions);
  assert.ok(Math.abs(info.endAt.getTime() - Date.now() - 120_000) < 5_000, "the lifetime runs from the resume");
  assert.equal((await runtime.exec(handle, { argv: ["echo", "back"] })).stdout, "back\n");
  await runtime.stop(handle);
  assert.equal((await runtime.exec(handle, { argv: ["echo", "resumed"] })).stdout, "resumed\n", "use resumes");
  await runtime.destroy(handle);
});

test("declared capabilities resolve: every structural capability but detached launch", () => {
  assertCapabilitiesConsistent(runtime);
  const resolved = resolveCapabilities(runtime);
  assert.deepEqual(
    [resolved.reattach, resolved.labelSearch, resolved.asyncExec, resolved.streaming, resolved.fileOps],
    [true, true, true, true, true],
  );
  assert.equal(resolved.detachedLaunch, "unsupported");
  assert.equal(resolved.verifiedCleanup, true);
  assert.equal(resolved.lifecycle, "unknown");
  assert.equal(resolved.filesystem, "unknown");
  assert.equal(resolved.outputStreams, "separate");
  assert.equal(resolved.lifetime, "deadline");
  assert.equal(resolved.isolation, "microvm");
});
