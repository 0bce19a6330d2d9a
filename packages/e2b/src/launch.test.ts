// launch through the real e2b SDK against the E2B emulator: what a sandbox
// carries, what is refused before any request, and what happens to a create
// that fails, is lost or outlives its caller.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { namespacesSkipReason } from "@sandport/testkit/fakes";
import { Sandbox } from "e2b";
import { emulated } from "../test/emulated.js";

const CREATE = "POST /v2/sandboxes";

const unisolated = await namespacesSkipReason();
const { emulator, runtime, runtimeWith } = await emulated({ owner: "launch-tests", lifetimeMs: 900_000 });

const ours = () => emulator.liveSandboxes().filter((sandbox) => sandbox.metadata[OWNER_LABEL] === "launch-tests");

test("launch stores ownership, launch key and labels as metadata, with the lifetime, env and workspace", async () => {
  const handle = await runtime.launch({ labels: { job: "42" }, env: { A: "1" }, launchKey: "key-1" });
  assert.deepEqual(handle.labels, { job: "42" }, "the handle carries the caller's labels only");
  assert.equal(handle.provider, "e2b");
  const info = await Sandbox.getInfo(handle.id, emulator.sdkOptions);
  assert.deepEqual(info.metadata, { job: "42", [OWNER_LABEL]: "launch-tests", [LAUNCH_KEY_LABEL]: "key-1" });
  assert.equal(info.templateId, "base");
  assert.equal(info.endAt.getTime() - info.startedAt.getTime(), 900_000);
  assert.equal((await runtime.exec(handle, { shell: 'echo "$A"; pwd' })).stdout.split("\n")[0], "1");
  assert.deepEqual(await runtime.listDir(handle, "."), [], "the workspace exists");
});

test("every launch gets a launch key, and the spec's lifetime wins", async () => {
  const handle = await runtime.launch({ lifetimeMs: 60_000 });
  const info = await Sandbox.getInfo(handle.id, emulator.sdkOptions);
  assert.match(info.metadata[LAUNCH_KEY_LABEL] ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(info.endAt.getTime() - info.startedAt.getTime(), 60_000);
});

test("invalid or unenforceable launch specs are refused before any request", async () => {
  emulator.resetRequests();
  await expectCode(runtime.launch({ labels: { "sandport.owner": "me" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ env: { "BAD NAME": "x" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ env: { SANDPORT_EXEC_ID: "forged" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ resources: { cpus: 2 } }), "UNSUPPORTED");
  assert.equal(emulator.countRequests(), 0);
});

test("allow-list entries E2B cannot express are refused before any request, naming the entry", async () => {
  emulator.resetRequests();
  for (const entry of ["api.example.com:443", "2001:db8::/32"]) {
    const error = await expectCode(runtime.launch({ network: { allow: ["example.com", entry] } }), "UNSUPPORTED");
    assert.equal(error.details.entry, entry);
  }
  assert.equal(emulator.countRequests(), 0);
});

test("an allow list reaches E2B as allowOut under a deny-all, with the internet off", {
  skip: unisolated,
}, async () => {
  const handle = await runtime.launch({ network: { allow: ["Example.com", "*.npmjs.org", "203.0.113.0/24"] } });
  const info = await Sandbox.getInfo(handle.id, emulator.sdkOptions);
  assert.equal(info.allowInternetAccess, false);
  assert.deepEqual(info.network?.allowOut, ["example.com", "*.npmjs.org", "203.0.113.0/24"]);
  assert.deepEqual(info.network?.denyOut, ["0.0.0.0/0"]);
  await runtime.destroy(handle);
});

test("create errors are typed: 429 and 503 refusals, and a lost response whose sandbox is reclaimed in the background", async () => {
  emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 }, times: 4 });
  const limited = await expectCode(runtime.launch(), "RATE_LIMITED");
  assert.equal(limited.retryable, true);
  emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 503 } });
  const busy = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
  assert.equal(busy.details.outcomeUnknown, false, "a 503 says the request was refused");
  const before = ours().length;
  emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
  const lost = await expectCode(runtime.launch({ launchKey: "lost-1" }), "PROVIDER_UNAVAILABLE");
  assert.equal(lost.details.outcomeUnknown, true);
  assert.equal(lost.details.launchKey, "lost-1");
  assert.match(lost.message, /search launch key lost-1/);
  assert.deepEqual(await runtime.settle(), []);
  assert.equal(
    ours().length,
    before,
    "the sandbox the lost response created was found by its launch key and destroyed",
  );
});

test("a launch aborted after the create was sent rejects at once; the late sandbox is destroyed", async () => {
  const before = ours().length;
  emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 1_000 } });
  const controller = new AbortController();
  const sent = emulator.countRequests(CREATE);
  const launching = runtime.launch({ labels: { late: "yes" } }, { signal: controller.signal });
  await waitFor(() => emulator.countRequests(CREATE) > sent, { what: "the create to be sent" });
  const abortedAt = performance.now();
  controller.abort(new Error("caller gave up"));
  const error = await expectCode(launching, "ABORTED");
  assert.ok(performance.now() - abortedAt < 500, "rejected promptly, long before the create's answer");
  assert.equal((error.cause as Error).message, "caller gave up");
  assert.deepEqual(await runtime.findByLabels({ late: "yes" }), [], "hidden while its cleanup runs");
  assert.deepEqual(await runtime.settle(), []);
  assert.equal(ours().length, before, "the sandbox that landed after the abort was destroyed");
});

test("a launch whose deadline fires while the create hangs rejects at once and leaves nothing", async () => {
  const before = ours().length;
  emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 600 } });
  emulator.resetRequests();
  await expectCode(runtime.launch({ labels: { hung: "yes" } }, { timeoutMs: 200 }), "DEADLINE_EXCEEDED");
  assert.deepEqual(await runtime.settle(), []);
  assert.ok(
    emulator.countRequests("GET /v2/sandboxes") >= 1,
    "the create's outcome was unknown: searched by launch key",
  );
  assert.equal(ours().length, before);
});

test("a create lost after its caller gave up is found by its launch key and destroyed", async () => {
  const before = ours().length;
  emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
  emulator.resetRequests();
  const controller = new AbortController();
  const launching = runtime.launch({ launchKey: "given-up" }, { signal: controller.signal });
  // Abort once the create has reached the emulator, before its (lost) answer.
  while (emulator.countRequests(CREATE) === 0) await new Promise((resolve) => setImmediate(resolve));
  controller.abort(new Error("caller gave up"));
  await expectCode(launching, "ABORTED");
  assert.deepEqual(await runtime.settle(), []);
  assert.ok(emulator.countRequests("GET /v2/sandboxes") >= 1, "searched by launch key");
  assert.equal(emulator.countRequests("DELETE /sandboxes/:id"), 1, "and destroyed what it found");
  assert.equal(ours().length, before);
});

test("a launch that fails after the sandbox exists destroys it", async () => {
  const before = ours().length;
  // Without sandboxUrl the launch connects after the create, to learn the sandbox's envd address.
  const connecting = runtimeWith({ sandboxUrl: undefined });
  emulator.injectFault({ route: /^POST (\/v2)?\/sandboxes\/:id\/connect$/, fault: { kind: "status", status: 500 } });
  await expectCode(connecting.launch(), "PROVIDER_UNAVAILABLE");
  assert.deepEqual(await connecting.settle(), []);
  assert.deepEqual(await runtime.settle(), []);
  assert.equal(ours().length, before);
});

test("a failing background cleanup is reported to onBackgroundError and kept for settle()", async () => {
  const reported: string[] = [];
  const watched = runtimeWith({ onBackgroundError: (error) => reported.push(error.code) });
  emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 300 } });
  emulator.injectFault({ route: "DELETE /sandboxes/:id", fault: { kind: "status", status: 403 } });
  const controller = new AbortController();
  const sent = emulator.countRequests(CREATE);
  const launching = watched.launch({}, { signal: controller.signal });
  await waitFor(() => emulator.countRequests(CREATE) > sent, { what: "the create to be sent" });
  controller.abort();
  await expectCode(launching, "ABORTED");
  const failures = await watched.settle();
  assert.deepEqual(
    failures.map((failure) => failure.code),
    ["AUTH"],
  );
  assert.deepEqual(reported, ["AUTH"]);
  assert.deepEqual(await watched.settle(), [], "settle() hands each failure over once");
  for (const handle of await runtime.findByLabels({})) await runtime.destroy(handle);
});
