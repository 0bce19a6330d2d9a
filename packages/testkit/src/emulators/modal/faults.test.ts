// Fault injection, driven through the real Modal SDK: injected statuses become
// gRPC statuses, and the SDK's own retries (3 for unary control-plane calls on
// UNAVAILABLE / INTERNAL / ..., the server's RPCRetryPolicy for throttling,
// stream resumption at an offset) are what the tests observe.

import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import type { ModalClientParams } from "modal";
import { waitFor } from "../../assertions/index.js";
import { type ModalEmulator, startModalEmulator } from "./emulator.js";
import { clientFor, loadModal, type Modal, type ModalClient } from "./sdk.fixture.js";

const CONTROL = "rpc modal.client.ModalClient/";
type ModalMiddleware = NonNullable<ModalClientParams["grpcMiddleware"]>[number];
const ROUTER = "rpc modal.task_command_router.TaskCommandRouter/";

describe("Modal emulator faults", () => {
  let modal: Modal;
  let emulator: ModalEmulator;
  let client: ModalClient;
  let app: Awaited<ReturnType<ModalClient["apps"]["fromName"]>>;

  before(async () => {
    modal = await loadModal();
    emulator = await startModalEmulator();
    client = clientFor(modal, emulator).client;
    app = await client.apps.fromName("faults", { createIfMissing: true });
  });

  after(() => emulator.stop());

  beforeEach(() => {
    emulator.clearFaults();
    emulator.resetRequests();
  });

  afterEach(async () => {
    emulator.clearFaults();
    for (const { id } of emulator.liveSandboxes()) {
      await (await client.sandboxes.fromId(id)).terminate().catch(() => undefined);
    }
  });

  const create = (tags: Record<string, string> = {}) =>
    client.sandboxes.create(app, client.images.fromRegistry("alpine:3.21"), { timeoutMs: 60_000, tags });
  const statuses = (route: string) =>
    emulator.requests.filter((request) => request.route === route).map((request) => request.status);

  it("503 is UNAVAILABLE, retried by the SDK; the sandbox is created once", async () => {
    emulator.injectFault({ route: `${CONTROL}SandboxCreateV2`, fault: { kind: "status", status: 503 } });
    const sandbox = await create();
    assert.deepEqual(statuses(`${CONTROL}SandboxCreateV2`), [503, 200]);
    assert.deepEqual(
      emulator.requests
        .filter((request) => request.route === `${CONTROL}SandboxCreateV2`)
        .map((request) => request.grpcStatus),
      [14, 0],
    );
    assert.deepEqual(
      emulator.liveSandboxes().map((entry) => entry.id),
      [sandbox.sandboxId],
    );
  });

  it("500 is INTERNAL: three retries, then the SDK's error; nothing is created", async () => {
    emulator.injectFault({ route: `${CONTROL}AppGetOrCreate`, fault: { kind: "status", status: 500 }, times: 4 });
    await assert.rejects(client.apps.fromName("never", { createIfMissing: true }), (error) => {
      assert.equal((error as { code?: number }).code, 13);
      assert.match((error as Error).message, /injected fault: HTTP 500/);
      return true;
    });
    assert.deepEqual(statuses(`${CONTROL}AppGetOrCreate`), [500, 500, 500, 500]);
    await assert.rejects(client.apps.fromName("never"), modal.NotFoundError);
  });

  it("429 with Retry-After carries Modal's retry policy: the SDK waits that long and retries", async () => {
    emulator.injectFault({
      route: `${CONTROL}SandboxCreateV2`,
      fault: { kind: "status", status: 429, retryAfterSeconds: 1 },
    });
    const started = Date.now();
    await create();
    assert.ok(Date.now() - started >= 900, "the SDK waited for the server's retry policy");
    assert.deepEqual(statuses(`${CONTROL}SandboxCreateV2`), [429, 200]);
    assert.equal(emulator.liveSandboxes().length, 1);
  });

  it("429 without Retry-After is RESOURCE_EXHAUSTED, which the SDK does not retry", async () => {
    emulator.injectFault({ route: `${CONTROL}SandboxCreateV2`, fault: { kind: "status", status: 429 } });
    await assert.rejects(create(), (error) => (error as { code?: number }).code === 8);
    assert.deepEqual(statuses(`${CONTROL}SandboxCreateV2`), [429]);
    assert.deepEqual(emulator.liveSandboxes(), []);
  });

  it("a dropped connection is UNAVAILABLE to the SDK, which reconnects and retries", async () => {
    emulator.injectFault({ route: `${CONTROL}SandboxCreateV2`, fault: { kind: "drop" } });
    const sandbox = await create();
    assert.deepEqual(statuses(`${CONTROL}SandboxCreateV2`), [0, 200]);
    assert.deepEqual(
      emulator.liveSandboxes().map((entry) => entry.id),
      [sandbox.sandboxId],
    );
  });

  it("a lost create answer is retried blindly: an orphan sandbox exists that only its tags can find", async () => {
    emulator.injectFault({ route: `${CONTROL}SandboxCreateV2`, fault: { kind: "lost-response" } });
    const sandbox = await create({ "launch-key": "k1" });
    assert.deepEqual(statuses(`${CONTROL}SandboxCreateV2`), [0, 200]);
    const found: string[] = [];
    for await (const entry of client.sandboxes.list({ appId: app.appId, tags: { "launch-key": "k1" } })) {
      found.push(entry.sandboxId);
    }
    assert.equal(found.length, 2);
    assert.ok(found.includes(sandbox.sandboxId));
  });

  it("a lost exec-start answer is retried with the same exec id, and the command runs once", async () => {
    const sandbox = await create();
    emulator.injectFault({ route: `${ROUTER}TaskExecStart`, fault: { kind: "lost-response" } });
    const command = await sandbox.exec(["sh", "-c", "echo ran >> runs.log"]);
    assert.equal(await command.wait(), 0);
    assert.deepEqual(statuses(`${ROUTER}TaskExecStart`), [0, 200]);
    assert.equal(await sandbox.filesystem.readText("/workspace/runs.log"), "ran\n");
  });

  it("an output stream cut mid-way is resumed by the SDK at its offset: no byte lost or repeated", async () => {
    const sandbox = await create();
    emulator.injectFault({ route: `${ROUTER}TaskExecStdioRead`, fault: { kind: "drop-mid-stream", afterEvents: 1 } });
    const command = await sandbox.exec(["sh", "-c", "echo one; sleep 0.3; echo two; sleep 0.3; echo three"]);
    assert.equal(await command.stdout.readText(), "one\ntwo\nthree\n");
    assert.equal(await command.wait(), 0);
    assert.equal(emulator.countRequests(`${ROUTER}TaskExecStdioRead`), 2);
    assert.deepEqual(statuses(`${ROUTER}TaskExecStdioRead`), [0, 200]);
  });

  it("latency delays answers; rules match route patterns and are spent after `times` uses", async () => {
    const sandbox = await create();
    emulator.injectFault({ route: /\/SandboxWaitV2$/, fault: { kind: "latency", ms: 400 }, times: 2 });
    const started = Date.now();
    assert.equal(await sandbox.poll(), null);
    assert.equal(await sandbox.poll(), null);
    assert.ok(Date.now() - started >= 780);
    const quick = Date.now();
    assert.equal(await sandbox.poll(), null);
    assert.ok(Date.now() - quick < 350, "the rule is spent after two uses");
    assert.equal(emulator.countRequests(/\/SandboxWaitV2$/), 3);
    assert.equal(emulator.countRequests(/^rpc modal\.task_command_router\./), 0);
  });

  it("counts every request, and a router fault leaves the control plane's connection alone", async () => {
    const sandbox = await create();
    emulator.resetRequests();
    emulator.injectFault({ route: `${ROUTER}TaskExecWait`, fault: { kind: "drop" } });
    const command = await sandbox.exec(["true"]);
    const [exitCode, polled] = await Promise.all([command.wait(), sandbox.poll()]);
    assert.deepEqual([exitCode, polled], [0, null]);
    assert.deepEqual(statuses(`${ROUTER}TaskExecWait`), [0, 200], "the SDK waits again after the dropped wait");
    assert.equal(emulator.countRequests(), emulator.requests.length);
    assert.equal(emulator.countRequests(/TaskExec/), 3);
    assert.equal(emulator.countRequests(`${CONTROL}SandboxWaitV2`), 1);
  });

  it("a call its client gave up while latency held it ends alone: the other calls on its connection are answered", async () => {
    // Polls (SandboxWaitV2 with timeout 0) of this client are cancelled on `giveUp`; long waits are not.
    const giveUp = new AbortController();
    const cancelPolls: ModalMiddleware = async function* cancelPolls(call, options) {
      const poll = call.method.path.endsWith("/SandboxWaitV2") && !(call.request as { timeout?: number }).timeout;
      const signal = poll && options.signal ? AbortSignal.any([options.signal, giveUp.signal]) : giveUp.signal;
      return yield* call.next(call.request, poll ? { ...options, signal } : options);
    };
    const { client: cancelling } = clientFor(modal, emulator, { grpcMiddleware: [cancelPolls] });
    const [first, second] = await Promise.all([create(), create()]);
    const polled = await cancelling.sandboxes.fromId(first.sandboxId);
    const waited = await cancelling.sandboxes.fromId(second.sandboxId);
    emulator.resetRequests();
    const waits = () => emulator.requests.filter((request) => request.route === `${CONTROL}SandboxWaitV2`);
    emulator.injectFault({ route: `${CONTROL}SandboxWaitV2`, fault: { kind: "latency", ms: 60_000 } });
    const poll = polled.poll();
    await waitFor(() => waits().length === 1 || undefined, { what: "the poll to be held" });
    // A long wait on the same connection: the server holds it while the sandbox runs.
    const wait = waited.wait();
    await waitFor(() => waits().length === 2 || undefined, { what: "the long wait to arrive" });
    giveUp.abort(new Error("the poll's caller gave up"));
    await assert.rejects(poll);
    await waitFor(() => waits()[0]?.endedAt !== undefined || undefined, { what: "the given-up poll to end" });
    await second.terminate();
    await wait;
    assert.deepEqual(
      waits().map((request) => request.status),
      [0, 200],
      "the long wait was answered on its first try: the given-up poll did not take its connection down",
    );
  });
});
