import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL, SandboxOrchestrator } from "@sandport/core";
import type { E2BConnectionFields, E2BCreateOptions } from "./internal/sdk-types.js";
import { delay, eventually, rejectsWithCode } from "./testing/assertions.js";
import { sdkErrors } from "./testing/fake-e2b.js";
import { type FakeSetup, fakeSetup } from "./testing/setup.js";

let setup: FakeSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** Every SDK call must spell out the fields the SDK would otherwise read from E2B_* variables. */
function assertExplicit(fields: E2BConnectionFields) {
  assert.equal(fields.apiKey, "e2b_test_key");
  assert.equal(fields.apiUrl, "http://127.0.0.1:9");
  assert.equal(fields.sandboxUrl, "http://127.0.0.1:9");
  assert.equal(fields.domain, "e2b.app");
  assert.equal(fields.debug, false);
  assert.equal(typeof fields.requestTimeoutMs, "number");
  assert.equal(fields.retries, 3);
}

test("launch stores ownership, launch key and labels as metadata, with explicit lifetime, env and network", async () => {
  setup = await fakeSetup({ lifetimeMs: 900_000 });
  const { runtime, fake } = setup;
  const handle = await runtime.launch({ labels: { job: "42" }, env: { A: "1" }, launchKey: "key-1", network: false });
  const [template, options] = (fake.callsOf("Sandbox.create")[0]?.args ?? []) as [string, E2BCreateOptions];
  assert.equal(template, "base");
  assertExplicit(options);
  assert.deepEqual(options.metadata, { job: "42", [OWNER_LABEL]: "unit-tests", [LAUNCH_KEY_LABEL]: "key-1" });
  assert.deepEqual(options.envs, { A: "1" });
  assert.equal(options.timeoutMs, 900_000);
  assert.equal(options.allowInternetAccess, false);
  assert.deepEqual(options.lifecycle, { onTimeout: "kill" });
  assert.deepEqual(handle.labels, { job: "42" }, "the handle carries caller labels only");
  assert.equal(handle.provider, "e2b");
  assert.deepEqual(
    fake.callsOf("files.makeDir").map((call) => call.args[0]),
    [setup.workspaceRoot],
    "the workspace is created",
  );
});

test("every launch gets a launch key, and the spec's lifetime wins", async () => {
  setup = await fakeSetup();
  await setup.runtime.launch({ lifetimeMs: 60_000 });
  const options = setup.fake.callsOf("Sandbox.create")[0]?.args[1] as E2BCreateOptions;
  assert.match(options.metadata[LAUNCH_KEY_LABEL] ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(options.timeoutMs, 60_000);
});

test("invalid or unenforceable launch specs are refused before any SDK call", async () => {
  setup = await fakeSetup();
  await rejectsWithCode(setup.runtime.launch({ labels: { "sandport.owner": "me" } }), "INVALID_REQUEST");
  await rejectsWithCode(setup.runtime.launch({ env: { "BAD NAME": "x" } }), "INVALID_REQUEST");
  await rejectsWithCode(setup.runtime.launch({ env: { SANDPORT_EXEC_ID: "forged" } }), "INVALID_REQUEST");
  await rejectsWithCode(setup.runtime.launch({ resources: { cpus: 2 } }), "UNSUPPORTED");
  assert.equal(setup.fake.calls.length, 0);
});

test("a self-hosted domain reconnects with the per-sandbox envd URL spelled out", async () => {
  setup = await fakeSetup({ domain: "e2b.example.com", apiUrl: "https://api.e2b.example.com", sandboxUrl: undefined });
  await setup.runtime.launch();
  const connect = setup.fake.callsOf("Sandbox.connect")[0]?.args as [string, E2BConnectionFields];
  assert.equal(connect[1].sandboxUrl, `https://49983-${connect[0]}.e2b.example.com`);
});

test("create errors are typed: 429 and 503 refusals, and a lost response that needs reconciling", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  fake.fail("Sandbox.create", sdkErrors.rateLimited);
  const limited = await rejectsWithCode(runtime.launch(), "RATE_LIMITED");
  assert.equal(limited.retryable, true);
  fake.fail("Sandbox.create", sdkErrors.serviceBusy);
  const busy = await rejectsWithCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
  assert.equal(busy.details.outcomeUnknown, false);
  fake.fail("Sandbox.create", sdkErrors.connectionLost, { afterWork: true });
  const lost = await rejectsWithCode(runtime.launch({ launchKey: "lost-1" }), "PROVIDER_UNAVAILABLE");
  assert.equal(lost.details.outcomeUnknown, true);
  assert.equal(lost.details.launchKey, "lost-1");
  assert.equal(fake.sandboxes.size, 1, "the sandbox the lost response created is left for the caller to reconcile");
  const found = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: "lost-1" });
  assert.equal(found.length, 1);
});

test("the orchestrator reconciles a create whose response was lost: nothing of ours is left", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  fake.fail("Sandbox.create", sdkErrors.connectionLost, { afterWork: true });
  const orchestrator = new SandboxOrchestrator(runtime, { retry: { initialDelayMs: 1, jitter: "none" } });
  const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });
  assert.equal(result.ok, true);
  assert.equal(fake.callsOf("Sandbox.create").length, 2, "one lost create, one fresh");
  assert.equal(fake.sandboxes.size, 0, "the orphan and the workload's sandbox are both destroyed");
});

test("a launch aborted after the create was sent rejects at once; the late sandbox is destroyed", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const realCreate = fake.module.Sandbox.create;
  (fake.module.Sandbox as { create: typeof realCreate }).create = async (template, options) => {
    await delay(200);
    return realCreate(template, options);
  };
  const controller = new AbortController();
  const launching = runtime.launch({ labels: { late: "yes" } }, { signal: controller.signal });
  await delay(20);
  const abortedAt = performance.now();
  controller.abort(new Error("caller gave up"));
  const error = await rejectsWithCode(launching, "ABORTED");
  assert.ok(performance.now() - abortedAt < 100, "rejected promptly");
  assert.equal((error.cause as Error).message, "caller gave up");
  assert.deepEqual(await runtime.settle(), []);
  assert.equal(fake.sandboxes.size, 0, "the sandbox that landed after the abort was destroyed");
  assert.deepEqual(await runtime.findByLabels({ late: "yes" }), []);
});

test("a launch that fails after the sandbox exists destroys it", async () => {
  setup = await fakeSetup();
  setup.fake.fail("files.makeDir", sdkErrors.serviceBusy);
  await rejectsWithCode(setup.runtime.launch(), "PROVIDER_UNAVAILABLE");
  await eventually(() => setup?.fake.sandboxes.size === 0, 2_000, "the half-launched sandbox to be destroyed");
  assert.deepEqual(await setup.runtime.settle(), []);
});

test("a launch deadline that fires while the create request hangs destroys what it finally makes", async () => {
  setup = await fakeSetup({ timeouts: { orphanCleanupMs: 5_000 } });
  const { runtime, fake } = setup;
  const realCreate = fake.module.Sandbox.create;
  (fake.module.Sandbox as { create: typeof realCreate }).create = async (template, options) => {
    const sandbox = await realCreate(template, options);
    await delay(150);
    throw Object.assign(sdkErrors.timeout(), { sandboxId: sandbox.sandboxId });
  };
  await rejectsWithCode(runtime.launch({}, { timeoutMs: 50 }), "DEADLINE_EXCEEDED");
  assert.deepEqual(await runtime.settle(), []);
  assert.equal(fake.sandboxes.size, 0, "found by its launch key and destroyed");
});
