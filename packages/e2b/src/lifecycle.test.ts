import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { assertCapabilitiesConsistent, resolveCapabilities } from "@sandport/core";
import type { E2BHandle } from "./ownership.js";
import { rejectsWithCode } from "./testing/assertions.js";
import { sdkErrors } from "./testing/fake-e2b.js";
import { type FakeSetup, fakeSetup } from "./testing/setup.js";

let setup: FakeSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

test("destroy deletes, then verifies absence; destroying again resolves", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  fake.calls.length = 0;
  await runtime.destroy(handle);
  assert.deepEqual(
    fake.calls.map((call) => call.method),
    ["Sandbox.kill", "Sandbox.getInfo"],
    "one DELETE and one lookup that proves absence",
  );
  assert.equal(fake.sandboxes.size, 0);
  await runtime.destroy(handle);
  await rejectsWithCode(runtime.exec(handle, { argv: ["true"] }), "NOT_FOUND");
  await rejectsWithCode(runtime.readFile(handle, "a.txt"), "NOT_FOUND");
});

test("destroy that cannot prove absence rejects DESTROY_UNVERIFIED", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  (fake.module.Sandbox as { kill: unknown }).kill = async () => true; // says yes, deletes nothing
  const error = await rejectsWithCode(runtime.destroy(handle, { timeoutMs: 600 }), "DESTROY_UNVERIFIED");
  assert.equal(error.retryable, true);
  fake.fail("Sandbox.getInfo", sdkErrors.serverError);
  await rejectsWithCode(runtime.destroy(handle, { timeoutMs: 600 }), "DESTROY_UNVERIFIED");
});

test("destroy maps a failed DELETE (retryable) and never touches a foreign sandbox", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  fake.fail("Sandbox.kill", sdkErrors.serviceBusy);
  const error = await rejectsWithCode(runtime.destroy(handle), "PROVIDER_UNAVAILABLE");
  assert.equal(error.retryable, true);
  const foreign = fake.seedForeign();
  const forged: E2BHandle = { id: foreign, provider: "e2b", labels: {} };
  await rejectsWithCode(runtime.destroy(forged), "FOREIGN_SANDBOX");
  await rejectsWithCode(runtime.exec(forged, { argv: ["true"] }), "FOREIGN_SANDBOX");
  assert.ok(fake.sandboxes.has(foreign), "the foreign sandbox survives");
  assert.equal(fake.callsOf("Sandbox.kill").filter((call) => call.args[0] === foreign).length, 0);
  await rejectsWithCode(runtime.destroy({ id: "x", provider: "local", labels: {} } as never), "INVALID_REQUEST");
});

test("stop pauses and start resumes (connect) with the configured lifetime", async () => {
  setup = await fakeSetup({ lifetimeMs: 120_000 });
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  await runtime.stop(handle);
  assert.equal(fake.sandboxes.get(handle.id)?.state, "paused");
  await runtime.start(handle);
  assert.equal(fake.sandboxes.get(handle.id)?.state, "running");
  const connect = fake.callsOf("Sandbox.connect").at(-1)?.args[1] as { timeoutMs: number };
  assert.equal(connect.timeoutMs, 120_000);
  const result = await runtime.exec(handle, { argv: ["echo", "back"] });
  assert.equal(result.stdout, "back\n");
  await runtime.destroy(handle);
  await rejectsWithCode(runtime.stop(handle), "NOT_FOUND");
});

test("declared capabilities resolve: every structural capability but detached launch", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
  assertCapabilitiesConsistent(runtime);
  const resolved = resolveCapabilities(runtime);
  assert.equal(resolved.reattach, true);
  assert.equal(resolved.labelSearch, true);
  assert.equal(resolved.asyncExec, true);
  assert.equal(resolved.streaming, true);
  assert.equal(resolved.fileOps, true);
  assert.equal(resolved.detachedLaunch, "unsupported");
  assert.equal(resolved.verifiedCleanup, true);
  assert.equal(resolved.lifecycle, "unknown");
  assert.equal(resolved.filesystem, "unknown");
  assert.equal(resolved.outputStreams, "separate");
  assert.equal(resolved.lifetime, "deadline");
  assert.equal(resolved.isolation, "microvm");
});
