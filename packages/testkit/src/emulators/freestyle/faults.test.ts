// Harness faults through the real freestyle SDK: each reaches the caller as the
// SDK's own error (it has no retries, except per chunk of a resumable upload).

import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { type CreateVmOptions, Freestyle, FreestyleApiError, FreestyleTransportError } from "freestyle";
import { type FreestyleEmulator, startFreestyleEmulator } from "./emulator.js";

const egress: CreateVmOptions["firewall"] = {
  rules: [{ action: "allow", source: {}, destination: { public: true } }],
};

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail("the call must fail"),
    (caught: unknown) => caught,
  );
}

describe("Freestyle emulator faults", () => {
  let emulator: FreestyleEmulator;
  let freestyle: Freestyle;

  before(async () => {
    emulator = await startFreestyleEmulator();
    freestyle = new Freestyle(emulator.sdkOptions);
  });

  after(() => emulator.stop());

  beforeEach(() => {
    emulator.clearFaults();
    emulator.resetRequests();
  });

  afterEach(async () => {
    emulator.clearFaults();
    for (const { id } of emulator.liveSandboxes()) await freestyle.vms.delete(id).catch(() => undefined);
  });

  const create = (metadata: Record<string, string> = {}) => freestyle.vms.create({ firewall: egress, metadata });
  const statuses = (route: string) =>
    emulator.requests.filter((request) => request.route === route).map((request) => request.status);
  const workspace = (path: string) => `${emulator.workspaceDirectory}/${path}`;

  it("429 with Retry-After reaches the caller as FreestyleApiError (the SDK does not retry); nothing is created", async () => {
    emulator.injectFault({ route: "POST /v5/vms", fault: { kind: "status", status: 429, retryAfterSeconds: 1 } });
    const error = await failure(create());
    assert.ok(error instanceof FreestyleApiError);
    assert.deepEqual([error.status, error.code], [429, "RATE_LIMITED"]);
    assert.deepEqual(statuses("POST /v5/vms"), [429]);
    assert.deepEqual(emulator.liveSandboxes(), []);
    await create();
    assert.deepEqual(statuses("POST /v5/vms"), [429, 200], "the fault was used up");
  });

  it("5xx on exec is a FreestyleApiError and the command never ran", async () => {
    const { vm } = await create();
    emulator.injectFault({ route: "POST /v5/vms/:id/exec-await", fault: { kind: "status", status: 503 } });
    const error = await failure(vm.exec("echo ran > ran.txt"));
    assert.ok(error instanceof FreestyleApiError);
    assert.deepEqual([error.status, error.code], [503, "SERVICE_UNAVAILABLE"]);
    assert.equal(await vm.fs.exists(workspace("ran.txt")), false);
    emulator.injectFault({ route: "POST /v5/vms/:id/exec-await", fault: { kind: "status", status: 500 } });
    assert.equal(((await failure(vm.exec("true"))) as FreestyleApiError).code, "INTERNAL_ERROR");
  });

  it("a dropped connection fails the call with FreestyleTransportError before any work", async () => {
    emulator.injectFault({ route: "POST /v5/vms", fault: { kind: "drop" } });
    const error = await failure(create());
    assert.ok(error instanceof FreestyleTransportError, `got ${String(error)}`);
    assert.ok(error.errors.length > 0, "it carries the connection diagnostics");
    assert.equal(emulator.countRequests("POST /v5/vms"), 1);
    assert.deepEqual(emulator.liveSandboxes(), []);
  });

  it("a lost create response leaves a VM the caller never heard of, which a metadata list finds", async () => {
    emulator.injectFault({ route: "POST /v5/vms", fault: { kind: "lost-response" } });
    await assert.rejects(create({ "launch-key": "k1" }));
    assert.deepEqual(statuses("POST /v5/vms"), [0]);
    const live = emulator.liveSandboxes();
    assert.equal(live.length, 1);
    const found = await freestyle.vms.list({ metadata: "launch-key:k1" });
    assert.deepEqual(
      found.vms.map((entry) => entry.id),
      [live[0]?.id],
    );
  });

  it("5xx and a lost response on DELETE: the first leaves the VM, the second deletes it unseen", async () => {
    const { vm } = await create();
    emulator.injectFault({ route: "DELETE /v5/vms/:id", fault: { kind: "status", status: 502 } });
    assert.equal(((await failure(vm.delete())) as FreestyleApiError).status, 502);
    assert.equal(emulator.liveSandboxes().length, 1);
    emulator.injectFault({ route: "DELETE /v5/vms/:id", fault: { kind: "lost-response" } });
    await assert.rejects(vm.delete());
    assert.deepEqual(emulator.liveSandboxes(), []);
    assert.equal(((await failure(vm.delete())) as FreestyleApiError).code, "VM_NOT_FOUND", "a retry finds it gone");
    assert.deepEqual(statuses("DELETE /v5/vms/:id"), [502, 0, 404]);
  });

  it("an answer cut mid-body fails the exec, though the command ran", async () => {
    const { vm } = await create();
    emulator.injectFault({ route: "POST /v5/vms/:id/exec-await", fault: { kind: "drop-mid-stream" } });
    await assert.rejects(vm.exec("echo ran > ran.txt; echo a long enough answer to cut in half"));
    assert.equal(await vm.fs.readTextFile(workspace("ran.txt")), "ran\n");
  });

  it("a dropped chunk of a resumable upload is retried by the SDK after checking what the server kept", async () => {
    const { vm } = await create();
    const size = 8 * 1024 * 1024 + 1024;
    const content = Buffer.alloc(size, 7);
    emulator.resetRequests();
    emulator.injectFault({ route: "PUT /v5/vms/:id/fs/uploads/:uploadId", fault: { kind: "drop" } });
    await vm.fs.writeFile(workspace("big.bin"), content, { chunkSize: 4 * 1024 * 1024 });
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [
        "POST /v5/vms/:id/fs/uploads 200",
        "PUT /v5/vms/:id/fs/uploads/:uploadId 0",
        "GET /v5/vms/:id/fs/uploads/:uploadId 200",
        "PUT /v5/vms/:id/fs/uploads/:uploadId 200",
        "PUT /v5/vms/:id/fs/uploads/:uploadId 200",
        "PUT /v5/vms/:id/fs/uploads/:uploadId 200",
        "POST /v5/vms/:id/fs/uploads/:uploadId/commit 204",
      ],
    );
    assert.equal((await vm.fs.stat(workspace("big.bin"))).size, size);
    assert.deepEqual(
      Buffer.from(await vm.fs.readFile(workspace("big.bin"), { offset: size - 4 })),
      content.subarray(-4),
    );
  });

  it("latency delays the answer; faults match route patterns, apply `times` times, and requests are counted", async () => {
    const { vm } = await create();
    await vm.fs.writeTextFile(workspace("a.txt"), "a");
    emulator.resetRequests();
    emulator.injectFault({ route: /fs\/read$/, fault: { kind: "latency", ms: 400 }, times: 2 });
    const started = Date.now();
    await vm.fs.readTextFile(workspace("a.txt"));
    await vm.fs.readTextFile(workspace("a.txt"));
    assert.ok(Date.now() - started >= 780);
    const quick = Date.now();
    assert.equal(await vm.fs.readTextFile(workspace("a.txt")), "a");
    assert.ok(Date.now() - quick < 350, "the rule is spent after two uses");
    await vm.exec("true");
    assert.equal(emulator.countRequests(), 4);
    assert.equal(emulator.countRequests("GET /v5/vms/:id/fs/read"), 3);
    assert.equal(emulator.countRequests(/^POST /), 1);
    emulator.resetRequests();
    assert.equal(emulator.countRequests(), 0);
  });
});
