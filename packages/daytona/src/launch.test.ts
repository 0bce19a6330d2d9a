// launch and launchDetached through the real SDK against the Daytona emulator:
// what a sandbox carries, what is refused before any request, and what happens
// to a create that fails, is lost or outlives its caller.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { defaultBackendIsolation } from "@sandport/testkit/emulators";
import type { DaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulated } from "../test/emulated.js";

const CREATE = "POST /api/sandbox";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "launch-tests" });

// The emulator's default backend gives a sandbox its own loopback only with one namespace set per sandbox (as root).
const backend = await defaultBackendIsolation();
const ownLoopback = backend.isolated && backend.namespaceScope === "sandbox";

/** A sandbox exactly as the emulator's API answers it. */
async function record(source: DaytonaEmulator, id: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${source.apiUrl}/sandbox/${id}`, {
    headers: { authorization: `Bearer ${source.apiKey}` },
  });
  return (await response.json()) as Record<string, unknown>;
}

/** Our sandboxes that are not on their way out (a delete is answered at once, the sandbox goes in the background). */
const ours = () =>
  emulator
    .liveSandboxes()
    .filter((sandbox) => sandbox.metadata[OWNER_LABEL] === "launch-tests" && sandbox.state !== "destroying");

test("launch stores ownership, launch key and labels, the env, every lifecycle interval and the network setting", async () => {
  const tuned = runtimeWith({ autoStopMinutes: 0, autoArchiveMinutes: 60, autoDeleteMinutes: 120, snapshot: "snap-1" });
  emulator.resetRequests();
  const handle = await tuned.launch({ labels: { job: "42" }, env: { A: "1" }, launchKey: "key-1" });
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [CREATE],
    "one create (answered once started); the workspace is made by its first use",
  );
  assert.deepEqual(handle.labels, { job: "42" }, "the handle carries the caller's labels only");
  assert.equal(handle.provider, "daytona");
  const stored = await record(emulator, handle.id);
  assert.deepEqual(stored.labels, {
    job: "42",
    [OWNER_LABEL]: "launch-tests",
    [LAUNCH_KEY_LABEL]: "key-1",
    "code-toolbox-language": "python",
  });
  assert.deepEqual(stored.env, { A: "1" });
  assert.deepEqual(
    [stored.autoStopInterval, stored.autoArchiveInterval, stored.autoDeleteInterval, stored.networkBlockAll],
    [0, 60, 120, false],
  );
  assert.deepEqual([stored.snapshot, stored.target, stored.public], ["snap-1", emulator.target, false]);
  assert.equal((await tuned.exec(handle, { shell: 'echo "$A"' })).stdout, "1\n", "the launch env reaches commands");
  assert.deepEqual(await tuned.listDir(handle, "."), [], "the workspace exists and is empty");
  assert.deepEqual((await tuned.getById(handle.id))?.labels, { job: "42" }, "labels survive reattach");
});

test("defaults are sent too: 15 minutes to stop, 7 days to archive, never deleted, network on; a template names the snapshot", async () => {
  const handle = await runtime.launch({ template: "from-template" });
  const stored = await record(emulator, handle.id);
  assert.deepEqual(
    [stored.autoStopInterval, stored.autoArchiveInterval, stored.autoDeleteInterval, stored.networkBlockAll],
    [15, 10_080, -1, false],
  );
  assert.equal(stored.snapshot, "from-template");
  assert.match((stored.labels as Record<string, string>)[LAUNCH_KEY_LABEL] ?? "", /^[0-9a-f-]{36}$/);
});

test("an image is built with the configured resources; the spec's whole-GiB resources (memory, disk) win", async () => {
  const builder = runtimeWith({ image: "python:3.12-slim", resources: { cpu: 2, memoryGiB: 4, diskGiB: 5 } });
  const handle = await builder.launch({ resources: { memoryMiB: 8192, diskMiB: 10_240 } });
  const stored = await record(emulator, handle.id);
  assert.match(
    String((stored.buildInfo as { dockerfileContent?: string }).dockerfileContent),
    /FROM python:3\.12-slim/,
  );
  assert.deepEqual([stored.cpu, stored.memory, stored.disk], [2, 8, 10]);
  assert.deepEqual(handle.resources, { cpus: 2, memoryMiB: 8192, diskMiB: 10_240 }, "what Daytona answered it gave");
  assert.deepEqual((await builder.getById(handle.id))?.resources, handle.resources, "a rebuilt handle too");
  assert.equal((await builder.exec(handle, { argv: ["true"] })).exitCode, 0);
});

test("the handle says what Daytona gave a sandbox nobody sized: the snapshot's size, read from its answer", async () => {
  const handle = await runtime.launch();
  const stored = await record(emulator, handle.id);
  assert.deepEqual(handle.resources, {
    cpus: stored.cpu,
    memoryMiB: Number(stored.memory) * 1024,
    diskMiB: Number(stored.disk) * 1024,
  });
  const [found] = await runtime.findByLabels({
    [LAUNCH_KEY_LABEL]: String((stored.labels as Record<string, string>)[LAUNCH_KEY_LABEL]),
  });
  assert.deepEqual(found?.resources, handle.resources, "a listed handle too");
});

test("network: false asks for networkBlockAll, which the namespaced default backend gives", {
  skip: ownLoopback
    ? undefined
    : "needs bubblewrap with one namespace set per sandbox (a root runtime): the emulator's default backend is unisolated here",
}, async () => {
  const handle = await runtime.launch({ network: false });
  assert.equal((await record(emulator, handle.id)).networkBlockAll, true);
  const probe = await runtime.exec(handle, {
    argv: ["python3", "-c", "import socket;print(socket.socket().connect_ex(('1.1.1.1',53)) != 0)"],
  });
  assert.equal(probe.stdout, "True\n", "nothing outside the sandbox is reachable");
  await runtime.destroy(handle);
});

test("network: false asks for networkBlockAll (where the emulator's default backend cannot give it: the launch fails typed)", {
  skip: ownLoopback ? "the emulator's default backend gives a sandbox its own loopback here" : undefined,
}, async () => {
  const error = await expectCode(runtime.launch({ network: false, launchKey: "no-net" }), "PROVIDER_UNAVAILABLE");
  assert.match(error.message, /network: "none"/);
  const errored = emulator.liveSandboxes().find((sandbox) => sandbox.metadata[LAUNCH_KEY_LABEL] === "no-net");
  assert.ok(errored, "the create made a sandbox, which ended in state error");
  assert.equal((await record(emulator, errored.id)).networkBlockAll, true);
  assert.deepEqual(await runtime.settle(), []);
  const left = emulator.liveSandboxes().filter((sandbox) => sandbox.metadata[LAUNCH_KEY_LABEL] === "no-net");
  assert.deepEqual(
    left.filter((sandbox) => sandbox.state !== "destroying"),
    [],
    "it was found by its launch key and destroyed in the background",
  );
});

test("invalid or unenforceable launch specs are refused before any request", async () => {
  emulator.resetRequests();
  await expectCode(runtime.launch({ labels: { "sandport.owner": "me" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ labels: { "code-toolbox-language": "typescript" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ env: { "BAD NAME": "x" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ env: { SANDPORT_EXEC_ID: "forged" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ lifetimeMs: 60_000 }), "UNSUPPORTED");
  await expectCode(runtime.launch({ resources: { cpus: 2 } }), "UNSUPPORTED");
  const builder = runtimeWith({ image: "node:22" });
  await expectCode(builder.launch({ resources: { cpus: 1.5 } }), "UNSUPPORTED");
  await expectCode(builder.launch({ resources: { memoryMiB: 1000 } }), "UNSUPPORTED");
  await expectCode(builder.launch({ resources: { maxProcesses: 10 } }), "UNSUPPORTED");
  await expectCode(builder.launch({ resources: { diskMiB: 1000 } }), "UNSUPPORTED");
  await expectCode(runtime.launchDetached({ lifetimeMs: 1 }), "UNSUPPORTED");
  assert.equal(emulator.countRequests(), 0);
});

test("create errors are typed: 429 and 503 refusals, and a lost response whose sandbox is reclaimed in the background", async () => {
  emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 }, times: 3 });
  const limited = await expectCode(runtime.launch(), "RATE_LIMITED");
  assert.equal(limited.retryable, true);
  emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 503 }, times: 3 });
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

test("a create lost after its caller gave up is found by its launch key and destroyed", async () => {
  const before = ours().length;
  emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
  emulator.resetRequests();
  const controller = new AbortController();
  const launching = runtime.launch({ launchKey: "given-up" }, { signal: controller.signal });
  while (emulator.countRequests(CREATE) === 0) await new Promise((resolve) => setImmediate(resolve));
  controller.abort(new Error("caller gave up"));
  await expectCode(launching, "ABORTED");
  assert.deepEqual(await runtime.settle(), []);
  assert.ok(emulator.countRequests("GET /api/sandbox") >= 1, "searched by launch key");
  assert.equal(emulator.countRequests("DELETE /api/sandbox/:id"), 1, "and destroyed what it found");
  assert.equal(ours().length, before);
});

test("launchDetached answers before the sandbox is ready; ready() waits for it; the first command makes the workspace", async () => {
  const builder = runtimeWith({ image: "python:3.12-slim" });
  emulator.resetRequests();
  const handle = await builder.launchDetached({ labels: { detached: "yes" } });
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [CREATE],
  );
  assert.equal((await record(emulator, handle.id)).state, "creating", "still building when the call returned");
  assert.deepEqual(
    (await builder.findByLabels({ detached: "yes" })).map((found) => found.id),
    [handle.id],
  );
  await builder.ready(handle);
  assert.equal((await record(emulator, handle.id)).state, "started");
  assert.equal((await builder.exec(handle, { argv: ["pwd"] })).exitCode, 0, "the command ran in the workspace");
  await builder.destroy(handle);
});

test("a failing background cleanup is reported to onBackgroundError and kept for settle()", async () => {
  const reported: string[] = [];
  const watched = runtimeWith({ onBackgroundError: (error) => reported.push(error.code) });
  emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 300 } });
  emulator.injectFault({ route: "DELETE /api/sandbox/:id", fault: { kind: "status", status: 403 } });
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
