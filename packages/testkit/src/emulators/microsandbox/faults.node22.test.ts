// Fault injection, driven through the real microsandbox SDK. The SDK does not
// retry: every injected failure reaches the caller as the SDK's own error.

import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { delay } from "../../assertions/index.js";
import { type MicrosandboxEmulator, startMicrosandboxEmulator } from "./emulator.js";
import { microsandbox } from "./sdk.fixture.js";

const { Sandbox, setDefaultBackend } = microsandbox;

describe("microsandbox emulator faults", () => {
  let emulator: MicrosandboxEmulator;

  before(async () => {
    emulator = await startMicrosandboxEmulator();
    setDefaultBackend(emulator.sdkBackend);
  });

  after(() => emulator.stop());

  beforeEach(() => {
    emulator.clearFaults();
    emulator.resetRequests();
  });

  afterEach(async () => {
    emulator.clearFaults();
    for (const { id } of emulator.liveSandboxes()) {
      await fetch(`${emulator.apiUrl}/v1/sandboxes/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${emulator.apiKey}` },
      });
    }
  });

  const create = (name: string) => Sandbox.builder(name).image("alpine").labels({ suite: "faults" }).create();
  const statuses = (route: string) =>
    emulator.requests.filter((request) => request.route === route).map((request) => request.status);

  it("429 and 5xx on create reach the caller as CloudHttpError / RuntimeError, once, and create nothing", async () => {
    const expectations: [number, new (message: string) => Error][] = [
      [429, microsandbox.CloudHttpError],
      [500, microsandbox.CloudHttpError],
      [502, microsandbox.RuntimeError],
      [503, microsandbox.CloudHttpError],
    ];
    for (const [status, type] of expectations) {
      emulator.injectFault({
        route: "POST /v1/sandboxes",
        fault: { kind: "status", status, retryAfterSeconds: 1 },
      });
      const error = await create(`refused-${status}`).then(
        () => assert.fail(`create must fail with ${status}`),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof type, `${status} is ${type.name}`);
      assert.match((error as Error).message, new RegExp(String(status)));
    }
    assert.deepEqual(statuses("POST /v1/sandboxes"), [429, 500, 502, 503], "no retries");
    assert.deepEqual(emulator.liveSandboxes(), []);
    const created = await create("after-faults");
    assert.equal(created.name, "after-faults", "a rule is spent after one use");
  });

  it("a dropped create fails with HttpError before any work; a lost response leaves a sandbox to find by label", async () => {
    emulator.injectFault({ route: "POST /v1/sandboxes", fault: { kind: "drop" } });
    await assert.rejects(create("dropped"), microsandbox.HttpError);
    assert.deepEqual(emulator.liveSandboxes(), []);

    emulator.injectFault({ route: "POST /v1/sandboxes", fault: { kind: "lost-response" } });
    await assert.rejects(
      Sandbox.builder("lost").image("alpine").labels({ "launch-key": "k1" }).create(),
      microsandbox.HttpError,
    );
    assert.deepEqual(statuses("POST /v1/sandboxes"), [0, 0]);
    const page = await Sandbox.listWith((list) => list.label("launch-key", "k1"));
    assert.deepEqual(
      page.sandboxes.map((handle) => handle.name),
      ["lost"],
    );
    await assert.rejects(create("lost"), microsandbox.SandboxAlreadyExistsError, "a retry under the same name");
  });

  it("a failed agent handshake fails the operation with RuntimeError; the next one succeeds", async () => {
    const sandbox = await create("agent-faults");
    emulator.injectFault({ route: "GET /v1/sandboxes/:id/agent", fault: { kind: "status", status: 503 } });
    await assert.rejects(sandbox.exec("true"), (error: unknown) => {
      return error instanceof microsandbox.RuntimeError && /503/.test(error.message);
    });
    emulator.injectFault({ route: "GET /v1/sandboxes/:id/agent", fault: { kind: "drop" } });
    await assert.rejects(sandbox.fs().write("/x.txt", "x"), microsandbox.RuntimeError);
    assert.equal(await sandbox.fs().exists("/x.txt"), false, "the write never reached the sandbox");
    assert.equal((await sandbox.exec("echo", ["ok"])).stdout(), "ok\n");
    assert.deepEqual(statuses("GET /v1/sandboxes/:id/agent"), [503, 0, 101, 101]);
  });

  it("an agent connection cut mid-stream fails the call; the command runs on in the sandbox", async () => {
    const sandbox = await create("cut");
    emulator.injectFault({
      route: "GET /v1/sandboxes/:id/agent",
      fault: { kind: "drop-mid-stream", afterEvents: 1 },
    });
    await assert.rejects(
      sandbox.exec("sh", ["-c", "echo first; sleep 0.3; echo done > survived.txt"]),
      /ended without exit/,
    );
    await delay(600);
    assert.equal(await sandbox.fs().readToString("/survived.txt"), "done\n");

    emulator.injectFault({ route: "GET /v1/sandboxes/:id/agent", fault: { kind: "lost-response" } });
    await assert.rejects(sandbox.fs().write("/lost.txt", "written"));
    assert.equal(await sandbox.fs().readToString("/lost.txt"), "", "the open ran, its answer was lost");
  });

  it("5xx and a lost response on delete: the first leaves the sandbox, the second removes it unseen", async () => {
    await create("deletable");
    emulator.injectFault({ route: "DELETE /v1/sandboxes/by-name/:name", fault: { kind: "status", status: 500 } });
    await assert.rejects(Sandbox.remove("deletable"), microsandbox.CloudHttpError);
    assert.equal(emulator.liveSandboxes().length, 1);
    emulator.injectFault({ route: "DELETE /v1/sandboxes/by-name/:name", fault: { kind: "lost-response" } });
    await assert.rejects(Sandbox.remove("deletable"), microsandbox.HttpError);
    assert.deepEqual(emulator.liveSandboxes(), []);
    await assert.rejects(Sandbox.remove("deletable"), microsandbox.SandboxNotFoundError, "a retry finds it gone");
    assert.deepEqual(statuses("DELETE /v1/sandboxes/by-name/:name"), [500, 0, 404]);
  });

  it("latency delays the answer; faults match route patterns and apply `times` times; requests are counted", async () => {
    const sandbox = await create("slow");
    emulator.resetRequests();
    emulator.injectFault({ route: /^GET \/v1\/sandboxes\/by-name\//, fault: { kind: "latency", ms: 300 }, times: 2 });
    const started = Date.now();
    await sandbox.exec("true");
    await sandbox.exec("true");
    assert.ok(Date.now() - started >= 580, "both lookups were delayed");
    const quick = Date.now();
    await sandbox.exec("true");
    assert.ok(Date.now() - quick < 280, "the rule is spent after two uses");
    emulator.injectFault({ route: "GET /v1/sandboxes/:id/agent", fault: { kind: "latency", ms: 300 } });
    const slowHandshake = Date.now();
    assert.equal((await sandbox.exec("echo", ["late"])).stdout(), "late\n");
    assert.ok(Date.now() - slowHandshake >= 290);
    assert.equal(emulator.countRequests(), 8);
    assert.equal(emulator.countRequests("GET /v1/sandboxes/by-name/:name"), 4);
    assert.equal(emulator.countRequests(/agent$/), 4);
    assert.equal(emulator.agentOperations.length, 4);
  });
});
