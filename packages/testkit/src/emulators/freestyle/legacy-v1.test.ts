// Wire tests for the legacy /v1 VM API: the real freestyle-sandboxes SDK
// (0.1.46) against the same emulator, VMs and backend as /v5.
//
// The backend here is the default `isolation: "none"` LocalRuntime, running as
// whoever runs the tests (root in CI), so these tests use only calls whose
// paths the emulator maps onto the workspace. The SDK's `fs.mkdir`, `remove`,
// `exists` and `stat` are shell commands whose paths nothing maps: an absolute
// one would name a host path. They are tested over a namespaces backend, where
// the host is read-only, in isolated-backend.test.ts.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { Freestyle } from "freestyle";
import { Errors as LegacyErrors, Freestyle as LegacyFreestyle } from "freestyle-sandboxes";
import { waitFor } from "../../assertions/index.js";
import { type FreestyleEmulator, startFreestyleEmulator } from "./emulator.js";

describe("Freestyle emulator /v1 with the legacy freestyle-sandboxes SDK", () => {
  let emulator: FreestyleEmulator;
  let legacy: LegacyFreestyle;

  before(async () => {
    emulator = await startFreestyleEmulator();
    legacy = new LegacyFreestyle(emulator.sdkOptions);
  });

  after(() => emulator.stop());

  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) await legacy.vms.delete({ vmId: id }).catch(() => undefined);
  });

  const app = () => `${emulator.workspaceDirectory}/app`;

  it("create with workdir → write → exec in the workdir → read → lifecycle → delete, with exact requests", async () => {
    emulator.resetRequests();
    const { vm, vmId, domains } = await legacy.vms.create({ workdir: app(), idleTimeoutSeconds: 300 });
    assert.match(vmId, /^[a-z0-9]{20}$/);
    assert.deepEqual(domains, []);
    await vm.fs.writeTextFile("hello.txt", "hello from v1\n");
    const result = await vm.exec({
      command: 'cat hello.txt; basename "$PWD"; echo err >&2; exit 3',
      timeoutMs: 10_000,
    });
    assert.deepEqual(result, { stdout: "hello from v1\napp\n", stderr: "err\n", statusCode: 3 });
    assert.equal(await vm.fs.readTextFile(`${app()}/hello.txt`), "hello from v1\n");
    assert.equal((await vm.getInfo()).state, "running");

    await vm.stop();
    assert.equal((await vm.getInfo()).state, "stopped");
    await vm.start();
    await vm.suspend();
    assert.equal((await vm.getInfo()).state, "suspended");
    await assert.rejects(vm.suspend(), LegacyErrors.VmNotRunningError);
    assert.equal((await vm.exec("echo woke")).stdout, "woke\n", "an exec wakes a suspended VM");
    await vm.kill();
    assert.equal((await vm.getInfo()).state, "stopped");

    assert.deepEqual(await vm.delete(), { id: vmId });
    await assert.rejects(vm.getInfo(), LegacyErrors.VmNotFoundError);
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [
        "POST /v1/vms 200",
        "PUT /v1/vms/:id/files/:path 200",
        "POST /v1/vms/:id/exec-await 200",
        "GET /v1/vms/:id/files/:path 200",
        "GET /v1/vms/:id 200",
        "POST /v1/vms/:id/stop 200",
        "GET /v1/vms/:id 200",
        "POST /v1/vms/:id/start 200",
        "POST /v1/vms/:id/suspend 200",
        "GET /v1/vms/:id 200",
        "POST /v1/vms/:id/suspend 400",
        "POST /v1/vms/:id/exec-await 200",
        "POST /v1/vms/:id/kill 200",
        "GET /v1/vms/:id 200",
        "DELETE /v1/vms/:id 200",
        "GET /v1/vms/:id 404",
      ],
    );
    assert.equal(emulator.requests[1]?.path, `/v1/vms/${vmId}/files/hello.txt`);
    assert.equal(emulator.requests[3]?.path, `/v1/vms/${vmId}/files/${encodeURIComponent(`${app()}/hello.txt`)}`);
    for (const request of emulator.requests) {
      assert.equal(request.headers.authorization, `Bearer ${emulator.apiKey}`);
      assert.equal(request.headers["x-freestyle-sdk"], "freestyle-sdk-ts");
    }
  });

  it("files: base64 round trip and directory listings, relative and absolute", async () => {
    const { vm } = await legacy.vms.create({ workdir: app() });
    const bytes = Buffer.from(Uint8Array.from({ length: 256 }, (_, index) => index));
    await vm.fs.writeFile("bin/all.bin", bytes);
    await vm.fs.writeTextFile(`${app()}/made/deep/note.txt`, "deep\n");
    assert.deepEqual(await vm.fs.readFile(`${app()}/bin/all.bin`), bytes);
    assert.equal(await vm.fs.readTextFile("made/deep/note.txt"), "deep\n");
    const listing = await vm.fs.readDir(app());
    assert.deepEqual(listing.map((entry) => `${entry.kind} ${entry.name}`).sort(), ["directory bin", "directory made"]);
    assert.deepEqual(
      (await vm.fs.readDir("made/deep")).map((entry) => `${entry.kind} ${entry.name}`),
      ["file note.txt"],
    );
    await assert.rejects(vm.fs.readFile("missing.txt"), LegacyErrors.FileNotFoundError);
    await assert.rejects(vm.fs.readFile("/etc/hostname"), /NOT_EMULATED/);
  });

  it("one fleet: /v5 VMs are listed by /v1 with /v1 state names, and /v1 VMs are reachable through /v5", async () => {
    const modern = new Freestyle(emulator.sdkOptions);
    const { vm: v5, vmId: v5Id } = await modern.vms.create({
      firewall: { rules: [{ action: "allow", source: {}, destination: { public: true } }] },
    });
    await v5.pause();
    const { vmId: v1Id } = await legacy.vms.create();
    const listed = await legacy.vms.list();
    assert.deepEqual(
      listed.vms.map((entry) => `${entry.id} ${entry.state}`),
      [`${v5Id} suspended`, `${v1Id} running`],
    );
    assert.deepEqual([listed.totalCount, listed.runningCount, listed.suspendedCount], [2, 1, 1]);
    assert.equal((await modern.vms.ref(v1Id).exec("echo via v5")).stdout, "via v5\n");
  });

  it("credentials, unknown snapshots and what /v1 does not emulate", async () => {
    const wrong = new LegacyFreestyle({ ...emulator.sdkOptions, apiKey: "fs_wrong" });
    await assert.rejects(wrong.vms.create(), LegacyErrors.UnauthorizedError);
    await assert.rejects(legacy.vms.create({ snapshotId: "sn-missing" }), LegacyErrors.SnapshotNotFoundError);
    await assert.rejects(legacy.vms.create({ ports: [{ port: 443, targetPort: 3000 }] }), /NOT_EMULATED/);
    await assert.rejects(legacy.vms.create({ workdir: "/opt/app" }), /NOT_EMULATED/);
    assert.deepEqual(emulator.liveSandboxes(), []);

    const { vm, vmId } = await legacy.vms.create();
    emulator.resetRequests();
    await assert.rejects(vm.exec({ command: "true", terminal: "t1" }), /NOT_EMULATED/);
    await assert.rejects(vm.user({ username: "nobody-here" }).exec("true"), /USER_NOT_FOUND/);
    await assert.rejects(vm.fork());
    await assert.rejects(vm.terminals.list());
    assert.deepEqual(emulator.unknownRoutes, [`POST /v1/vms/${vmId}/fork`, `GET /v1/vms/${vmId}/terminals`]);
  });

  it("backgrounded /v1 calls are polled at /auth/v1/background-requests/{id}", async () => {
    const { vmId } = await legacy.vms.create();
    const headers = { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" };
    const accepted = await fetch(`${emulator.baseUrl}/v1/vms/${vmId}/exec-await`, {
      method: "POST",
      headers: { ...headers, "x-freestyle-background-after-secs": "0" },
      body: JSON.stringify({ command: "sleep 0.3; echo later", terminal: null, timeoutMs: null }),
    });
    assert.equal(accepted.status, 202);
    const { requestId } = (await accepted.json()) as { requestId: string };
    const poll = () => fetch(`${emulator.baseUrl}/auth/v1/background-requests/${requestId}`, { headers });
    const done = await waitFor(
      async () => {
        const answer = await poll();
        if (answer.status !== 202) return answer;
        await answer.body?.cancel();
        return undefined;
      },
      { intervalMs: 100, timeoutMs: 10_000, what: "the background request to finish" },
    );
    assert.equal(done.status, 200);
    assert.deepEqual(await done.json(), { stdout: "later\n", stderr: "", statusCode: 0 });
  });
});
