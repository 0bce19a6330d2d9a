// Fault injection and deadlines, driven through the real e2b SDK.

import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import * as e2b from "e2b";
import { waitFor } from "../../assertions/index.js";
import { type E2BEmulator, startE2BEmulator } from "./emulator.js";

const { Sandbox } = e2b;

describe("E2B emulator faults and deadlines", () => {
  let emulator: E2BEmulator;

  before(async () => {
    emulator = await startE2BEmulator();
  });

  after(() => emulator.stop());

  beforeEach(() => {
    emulator.clearFaults();
    emulator.resetRequests();
  });

  afterEach(async () => {
    emulator.clearFaults();
    for (const { id } of emulator.liveSandboxes()) await Sandbox.kill(id, emulator.sdkOptions).catch(() => false);
  });

  const create = () => Sandbox.create({ ...emulator.sdkOptions, timeoutMs: 60_000 });
  const statuses = (route: string) =>
    emulator.requests.filter((request) => request.route === route).map((request) => request.status);

  it("429 with Retry-After is retried by the SDK's own retry; the sandbox is created once", async () => {
    emulator.injectFault({ route: "POST /v2/sandboxes", fault: { kind: "status", status: 429, retryAfterSeconds: 1 } });
    const started = Date.now();
    const sandbox = await create();
    assert.ok(Date.now() - started >= 900, "the SDK waited for Retry-After");
    assert.deepEqual(statuses("POST /v2/sandboxes"), [429, 201]);
    assert.deepEqual(
      emulator.liveSandboxes().map((entry) => entry.id),
      [sandbox.sandboxId],
    );
  });

  it("500 on create surfaces as an error and creates nothing", async () => {
    emulator.injectFault({ route: "POST /v2/sandboxes", fault: { kind: "status", status: 500 } });
    const error = await create().then(
      () => assert.fail("create must fail"),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof e2b.SandboxError);
    assert.match(error.message, /500/);
    assert.deepEqual(statuses("POST /v2/sandboxes"), [500]);
    assert.deepEqual(emulator.liveSandboxes(), []);
  });

  it("a dropped connection on create fails the call before any work", async () => {
    emulator.injectFault({ route: "POST /v2/sandboxes", fault: { kind: "drop" } });
    await assert.rejects(create());
    assert.equal(emulator.countRequests("POST /v2/sandboxes"), 1);
    assert.deepEqual(emulator.liveSandboxes(), []);
  });

  it("a lost create response leaves a sandbox the caller never heard of (what reconciliation must find)", async () => {
    emulator.injectFault({ route: "POST /v2/sandboxes", fault: { kind: "lost-response" } });
    await assert.rejects(
      Sandbox.create({ ...emulator.sdkOptions, timeoutMs: 60_000, metadata: { "launch-key": "k1" } }),
    );
    assert.deepEqual(statuses("POST /v2/sandboxes"), [0]);
    const live = emulator.liveSandboxes();
    assert.equal(live.length, 1);
    assert.deepEqual(live[0]?.metadata, { "launch-key": "k1" });
    const found = await Sandbox.list({
      ...emulator.sdkOptions,
      query: { metadata: { "launch-key": "k1" } },
    }).nextItems();
    assert.deepEqual(
      found.map((item) => item.sandboxId),
      [live[0]?.id],
    );
  });

  it("5xx and a lost response on DELETE: the first leaves the sandbox, the second kills it unseen", async () => {
    const sandbox = await create();
    emulator.injectFault({ route: "DELETE /sandboxes/:id", fault: { kind: "status", status: 503 } });
    await assert.rejects(sandbox.kill(), /503/);
    assert.equal(emulator.liveSandboxes().length, 1);
    emulator.injectFault({ route: "DELETE /sandboxes/:id", fault: { kind: "lost-response" } });
    await assert.rejects(sandbox.kill());
    assert.deepEqual(emulator.liveSandboxes(), []);
    assert.equal(await sandbox.kill(), false, "a retry finds it gone (404)");
    assert.deepEqual(statuses("DELETE /sandboxes/:id"), [503, 0, 404]);
  });

  it("a stream cut mid-way fails the command call; the process keeps running on the sandbox", async () => {
    const sandbox = await create();
    emulator.injectFault({ route: "rpc process.Process/Start", fault: { kind: "drop-mid-stream", afterEvents: 1 } });
    await assert.rejects(sandbox.commands.run("sleep 0.5; echo late", { timeoutMs: 10_000 }));
    const running = await sandbox.commands.list();
    assert.equal(running.length, 1, "the command outlives its stream");
    const reattached = await sandbox.commands.connect(running[0]!.pid, { timeoutMs: 10_000 });
    assert.equal((await reattached.wait()).stdout, "late\n");
  });

  it("latency delays the answer; faults match route patterns and apply `times` times", async () => {
    const sandbox = await create();
    emulator.injectFault({ route: /^GET \/files$/, fault: { kind: "latency", ms: 400 }, times: 2 });
    await sandbox.files.write("a.txt", "a");
    const started = Date.now();
    await sandbox.files.read("a.txt");
    await sandbox.files.read("a.txt");
    assert.ok(Date.now() - started >= 780);
    const quick = Date.now();
    await sandbox.files.read("a.txt");
    assert.ok(Date.now() - quick < 350, "the rule is spent after two uses");
    emulator.injectFault({ route: "GET /files", fault: { kind: "lost-response" } });
    await assert.rejects(sandbox.files.read("a.txt"));
  });

  it("a command's timeoutMs kills it: TimeoutError, and the process is gone", async () => {
    const sandbox = await create();
    const started = Date.now();
    await assert.rejects(sandbox.commands.run("sleep 20; echo never", { timeoutMs: 500 }), e2b.TimeoutError);
    assert.ok(Date.now() - started < 5_000);
    // The SDK gives up at its own copy of the deadline, a hair before the emulator's.
    for (let attempt = 0; attempt < 20 && (await sandbox.commands.list()).length > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(await sandbox.commands.list(), []);
  });

  it("a sandbox's timeout is honoured: expired sandboxes are killed (or paused), extended ones live on", async () => {
    const extended = await Sandbox.create({ ...emulator.sdkOptions, timeoutMs: 1_000 });
    await extended.setTimeout(60_000);
    const short = await Sandbox.create({ ...emulator.sdkOptions, timeoutMs: 1_000 });
    const pausing = await Sandbox.create({
      ...emulator.sdkOptions,
      timeoutMs: 1_000,
      lifecycle: { onTimeout: "pause" },
    });
    await pausing.files.write("kept.txt", "kept");
    const states = () =>
      emulator
        .liveSandboxes()
        .map((entry) => `${entry.id} ${entry.state}`)
        .sort();
    const expected = [`${extended.sandboxId} running`, `${pausing.sandboxId} paused`].sort();
    // The timeouts end the short sandboxes by themselves; the extended one outlives them.
    await waitFor(() => JSON.stringify(states()) === JSON.stringify(expected), { what: "the timeouts to act" });
    await assert.rejects(Sandbox.getInfo(short.sandboxId, emulator.sdkOptions), e2b.SandboxNotFoundError);
    await assert.rejects(short.files.read("anything"), e2b.TimeoutError);
    const resumed = await Sandbox.connect(pausing.sandboxId, { ...emulator.sdkOptions, timeoutMs: 30_000 });
    assert.equal(await resumed.files.read("kept.txt"), "kept");
  });
});
