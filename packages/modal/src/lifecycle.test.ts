// destroy through the real modal SDK against the Modal emulator: terminate,
// then verify the end; foreign sandboxes left alone; no stop or start; the
// declared capabilities.
import assert from "node:assert/strict";
import { test } from "node:test";
import { assertCapabilitiesConsistent, resolveCapabilities } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import type { ModalHandle } from "./handle.js";

const CONTROL = "rpc modal.client.ModalClient/";
const TERMINATE = `${CONTROL}SandboxTerminateV2`;
const WAIT = `${CONTROL}SandboxWaitV2`;

const { emulator, runtime, runtimeWith } = await emulated({ owner: "lifecycle-tests" });

const running = (id: string) => emulator.liveSandboxes().some((sandbox) => sandbox.id === id);

test("destroy terminates, then verifies the end; destroying again resolves", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  await runtime.destroy(handle);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [TERMINATE, WAIT],
    "one terminate and one poll that shows it finished",
  );
  assert.equal(running(handle.id), false);
  await runtime.destroy(handle);
  await runtimeWith({}).destroy(handle);
  await expectCode(runtime.exec(handle, { argv: ["true"] }), "NOT_FOUND");
  await expectCode(runtime.readFile(handle, "a.txt"), "NOT_FOUND");
});

test("a destroy that cannot verify the end rejects DESTROY_UNVERIFIED; a second destroy finishes it", async () => {
  const handle = await runtime.launch();
  emulator.injectFault({ route: WAIT, fault: { kind: "status", status: 403 }, times: 100 });
  // Room for the delete itself, which waits for the backend's destroy (seconds on a loaded machine); the rest
  // of the deadline is the verification window the faults use up.
  const error = await expectCode(runtime.destroy(handle, { timeoutMs: 4_000 }), "DESTROY_UNVERIFIED");
  assert.equal(error.retryable, true);
  assert.equal(error.details.sandboxId, handle.id);
  assert.ok(emulator.countRequests(WAIT) >= 2, "the check was repeated until the deadline");
  emulator.clearFaults();
  await runtime.destroy(handle);
});

test("a failed terminate is typed and retryable; a foreign sandbox is never terminated", async () => {
  const handle = await runtime.launch();
  emulator.injectFault({ route: TERMINATE, fault: { kind: "status", status: 403 } });
  await expectCode(runtime.destroy(handle), "AUTH");
  emulator.injectFault({ route: TERMINATE, fault: { kind: "status", status: 429 } });
  const limited = await expectCode(runtime.destroy(handle), "RATE_LIMITED");
  assert.equal(limited.retryable, true);
  await runtime.destroy(handle);
  const foreign = await emulator.seedForeignSandbox();
  const forged: ModalHandle = { id: foreign, provider: "modal", labels: {} };
  emulator.resetRequests();
  await expectCode(runtime.destroy(forged), "FOREIGN_SANDBOX");
  await expectCode(runtime.exec(forged, { argv: ["true"] }), "FOREIGN_SANDBOX");
  await expectCode(runtime.writeFiles(forged, [{ path: "x", content: "x" }]), "FOREIGN_SANDBOX");
  assert.equal(running(foreign), true, "the foreign sandbox survives");
  assert.equal(emulator.countRequests(/SandboxTerminateV2|TaskCommandRouter|SandboxGetCommandRouterAccess/), 0);
  emulator.resetRequests();
  await expectCode(runtime.destroy({ id: "x", provider: "local", labels: {} } as never), "INVALID_REQUEST");
  await expectCode(runtime.destroy({ id: "../x", provider: "modal", labels: {} }), "INVALID_REQUEST");
  await expectCode(runtime.destroy(null as never), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("Modal has no stop or start: the methods are absent, lifecycle is unsupported", () => {
  assertCapabilitiesConsistent(runtime);
  const methods = runtime as unknown as Record<string, unknown>;
  for (const name of ["stop", "start", "startCommand", "commandStatus", "commandLogs", "launchDetached"]) {
    assert.equal(methods[name], undefined, `${name} is absent, not a no-op`);
  }
  const resolved = resolveCapabilities(runtime);
  assert.deepEqual(
    [
      resolved.reattach,
      resolved.labelSearch,
      resolved.streaming,
      resolved.fileOps,
      resolved.interactive,
      resolved.ports,
    ],
    [true, true, true, true, true, true],
  );
  assert.deepEqual(
    [resolved.lifecycle, resolved.asyncExec, resolved.detachedLaunch],
    ["unsupported", "unsupported", "unsupported"],
  );
  assert.deepEqual(
    [resolved.verifiedCleanup, resolved.binaryOutput, resolved.warmLease, resolved.neverIdle, resolved.pty],
    [true, true, "unknown", "unknown", "not-exposed"],
  );
  assert.deepEqual(
    [resolved.outputStreams, resolved.filesystem, resolved.lifetime, resolved.isolation],
    ["separate", "persistent", "deadline", "container"],
  );
});

test("files persist for the sandbox's life, for every instance that reattaches (filesystem: persistent)", async () => {
  const handle = await runtime.launch();
  await runtime.writeFiles(handle, [{ path: "kept/a.txt", content: "kept" }]);
  await runtime.exec(handle, { shell: "echo more >> kept/a.txt" });
  const other = runtimeWith({});
  const found = await other.getById(handle.id);
  assert.ok(found);
  assert.equal(new TextDecoder().decode(await other.readFile(found, "kept/a.txt")), "keptmore\n");
  await other.destroy(found);
});
