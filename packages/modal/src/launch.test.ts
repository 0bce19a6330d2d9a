// launch through the real modal SDK against the Modal emulator: the tags and
// lifetime a sandbox carries, what is refused before any request, and what
// happens to a create that fails, is lost or outlives its caller.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const CONTROL = "rpc modal.client.ModalClient/";
const CREATE = `${CONTROL}SandboxCreateV2`;

const { emulator, runtime, runtimeWith } = await emulated({ owner: "launch-tests" });

const ours = () => emulator.liveSandboxes().filter((sandbox) => sandbox.metadata[OWNER_LABEL] === "launch-tests");

test("the first launch resolves the App and image once; the ownership tag, launch key and labels are tags", async () => {
  emulator.resetRequests();
  const handle = await runtime.launch({ labels: { job: "42" }, env: { A: "1" }, launchKey: "key-1" });
  assert.deepEqual(
    emulator.requests.map((request) => request.route.replace(CONTROL, "")),
    ["AuthTokenGet", "AppGetOrCreate", "EnvironmentGetOrCreate", "ImageGetOrCreate", "SandboxCreateV2"],
  );
  assert.deepEqual(handle, { id: handle.id, provider: "modal", labels: { job: "42" } });
  const stored = emulator.liveSandboxes().find((sandbox) => sandbox.id === handle.id);
  assert.deepEqual(stored?.metadata, { job: "42", [OWNER_LABEL]: "launch-tests", [LAUNCH_KEY_LABEL]: "key-1" });
  const shown = await runtime.exec(handle, { shell: 'echo "$A"; pwd' });
  assert.match(shown.stdout, /^1\n/);
  emulator.resetRequests();
  const second = await runtime.launch();
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [CREATE],
    "later launches are one create",
  );
  assert.match(
    emulator.liveSandboxes().find((sandbox) => sandbox.id === second.id)?.metadata[LAUNCH_KEY_LABEL] ?? "",
    /^[0-9a-f-]{36}$/,
  );
});

test("the lifetime is always sent: a launch's lifetimeMs (whole seconds) ends the sandbox", async () => {
  const short = await runtime.launch({ lifetimeMs: 2_900 });
  const long = await runtime.launch();
  await delay(1_500);
  assert.ok(await runtime.getById(short.id), "still running within its lifetime");
  await delay(1_000);
  assert.equal(await runtime.getById(short.id), undefined, "ended at 2 s: 2 900 ms rounds down to whole seconds");
  assert.ok(await runtime.getById(long.id), "the runtime's maxLifetimeMs keeps the other one");
});

test("invalid or unenforceable launch specs are refused before any request", async () => {
  emulator.resetRequests();
  await expectCode(runtime.launch({ labels: { [OWNER_LABEL]: "me" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ env: { "BAD NAME": "x" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ env: { SANDPORT_EXEC_ID: "forged" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ lifetimeMs: 999 }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ lifetimeMs: 24 * 3_600_000 + 1_000 }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ resources: { maxProcesses: 10 } }), "UNSUPPORTED");
  await expectCode(runtime.launch({ resources: { diskMiB: 2048 } }), "UNSUPPORTED");
  await expectCode(runtime.launch({ ports: [0] }), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("create errors are typed, and the SDK never sends a create twice", async () => {
  emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429 } });
  const limited = await expectCode(runtime.launch(), "RATE_LIMITED");
  assert.equal(limited.retryable, true);
  emulator.resetRequests();
  emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 503 } });
  const busy = await expectCode(runtime.launch({ launchKey: "busy-1" }), "PROVIDER_UNAVAILABLE");
  assert.equal(emulator.countRequests(CREATE), 1, "not retried by the SDK: a lost answer is reconciled instead");
  assert.equal(busy.details.launchKey, "busy-1");
  const before = ours().length;
  emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
  const lost = await expectCode(runtime.launch({ launchKey: "lost-1" }), "PROVIDER_UNAVAILABLE");
  assert.equal(lost.details.outcomeUnknown, true);
  assert.match(lost.message, /search launch key lost-1/);
  assert.deepEqual(await runtime.settle(), []);
  assert.equal(ours().length, before, "the sandbox the lost answer created was found by its launch key and destroyed");
});

test("the SDK obeys a server-side retry hint except on the create, which the caller repeats", async () => {
  emulator.resetRequests();
  emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 1 } });
  await expectCode(runtime.launch(), "RATE_LIMITED");
  assert.equal(emulator.countRequests(CREATE), 1);
  const LIST = `${CONTROL}SandboxListV2`;
  emulator.injectFault({ route: LIST, fault: { kind: "status", status: 429, retryAfterSeconds: 1 } });
  emulator.resetRequests();
  await runtime.findByLabels({ nothing: "here" });
  assert.equal(emulator.countRequests(LIST), 2, "the list waited as told and asked again");
});

test("a launch given up on (abort, deadline) while its create hangs rejects at once and leaves nothing", async () => {
  await runtime.launch(); // the App and image are resolved: the next launches are the create alone
  const cases = [
    { code: "ABORTED", labels: { late: "aborted" }, giveUp: (controller: AbortController) => controller.abort() },
    { code: "DEADLINE_EXCEEDED", labels: { late: "deadline" }, timeoutMs: 250 },
  ] as const;
  for (const givenUp of cases) {
    const before = ours().length;
    emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 500 } });
    const controller = new AbortController();
    const op = "timeoutMs" in givenUp ? { timeoutMs: givenUp.timeoutMs } : { signal: controller.signal };
    const sent = emulator.countRequests(CREATE);
    const launching = runtime.launch({ labels: givenUp.labels }, op);
    await waitFor(() => emulator.countRequests(CREATE) > sent, { what: "the create to be sent" });
    const gaveUpAt = performance.now();
    if ("giveUp" in givenUp) givenUp.giveUp(controller);
    await expectCode(launching, givenUp.code);
    assert.ok(performance.now() - gaveUpAt < 300, `${givenUp.code}: rejected promptly`);
    assert.deepEqual(await runtime.findByLabels(givenUp.labels), [], `${givenUp.code}: hidden while cleaned up`);
    assert.deepEqual(await runtime.settle(), []);
    await delay(500);
    assert.equal(ours().length, before, `${givenUp.code}: what the create made was destroyed (or never made)`);
  }
});

test("a failing background cleanup is reported to onBackgroundError and kept for settle()", async () => {
  const reported: string[] = [];
  const watched = runtimeWith({ onBackgroundError: (error) => reported.push(error.code) });
  await watched.launch().then((handle) => watched.destroy(handle));
  emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 300 } });
  emulator.injectFault({ route: `${CONTROL}SandboxTerminateV2`, fault: { kind: "status", status: 403 } });
  const controller = new AbortController();
  const sent = emulator.countRequests(CREATE);
  const launching = watched.launch({}, { signal: controller.signal });
  await waitFor(() => emulator.countRequests(CREATE) > sent, { what: "the create to be sent" });
  controller.abort();
  await expectCode(launching, "ABORTED");
  assert.deepEqual(
    (await watched.settle()).map((failure) => failure.code),
    ["AUTH"],
  );
  assert.deepEqual(reported, ["AUTH"]);
  assert.deepEqual(await watched.settle(), [], "settle() hands each failure over once");
  for (const handle of await runtime.findByLabels({})) await runtime.destroy(handle);
});
