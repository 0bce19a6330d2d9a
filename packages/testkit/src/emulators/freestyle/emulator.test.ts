// Wire tests: the real freestyle SDK (0.2.17, the /v5 API) against the
// Freestyle emulator, which runs every VM for real on its backend runtime.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import { LocalRuntime } from "@sandport/local";
import { type CreateVmOptions, Freestyle, FreestyleApiError } from "freestyle";
import { delay } from "../../assertions/index.js";
import { destroyEverySandbox } from "../harness/backend.js";
import { type FreestyleEmulator, startFreestyleEmulator } from "./emulator.js";

/** Outbound Internet: what the default `isolation: "none"` backend can honour. */
const egress: CreateVmOptions["firewall"] = {
  rules: [{ action: "allow", source: {}, destination: { public: true } }],
};

async function apiError(promise: Promise<unknown>): Promise<FreestyleApiError> {
  const error = await promise.then(
    () => assert.fail("the call must fail"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof FreestyleApiError, `expected a FreestyleApiError, got ${String(error)}`);
  return error;
}

describe("Freestyle emulator with the real freestyle SDK", () => {
  let emulator: FreestyleEmulator;
  let freestyle: Freestyle;

  before(async () => {
    emulator = await startFreestyleEmulator();
    freestyle = new Freestyle(emulator.sdkOptions);
  });

  after(() => emulator.stop());

  // A failed test must not leave VMs behind for the next one's assertions.
  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) await freestyle.vms.delete(id).catch(() => undefined);
  });

  const create = (extra: Partial<CreateVmOptions> = {}) => freestyle.vms.create({ firewall: egress, ...extra });
  const workspace = (path: string) => `${emulator.workspaceDirectory}/${path}`;

  it("create → write → exec → read → delete → get is VM_NOT_FOUND, with exact requests and credentials", async () => {
    emulator.resetRequests();
    const { vm, vmId, data, firewallRules } = await create({ metadata: { owner: "me" }, displayName: "first" });
    assert.match(vmId, /^[a-z0-9]{20}$/);
    assert.equal(data.state, "running");
    assert.deepEqual(data.metadata, { owner: "me" });
    assert.equal(data.displayName, "first");
    assert.equal(data.snapshotId, "freestyle/ubuntu");
    assert.equal(firewallRules.length, 1);
    assert.deepEqual(firewallRules[0]?.destination, { public: true });
    assert.deepEqual(emulator.liveSandboxes(), [
      { id: vmId, metadata: { owner: "me" }, foreign: false, state: "running" },
    ]);

    await vm.fs.writeTextFile(workspace("hello.txt"), "hello from freestyle\n");
    const result = await vm.exec({ command: 'cat hello.txt; echo "FOO=$FOO"; echo oops >&2', env: { FOO: "bar" } });
    assert.deepEqual(result, { stdout: "hello from freestyle\nFOO=bar\n", stderr: "oops\n", statusCode: 0 });
    await vm.exec("printf 'made by a command' > made.txt");
    assert.equal(await vm.fs.readTextFile(workspace("made.txt")), "made by a command");

    await vm.delete();
    assert.deepEqual(emulator.liveSandboxes(), []);
    const missing = await apiError(vm.data());
    assert.deepEqual([missing.status, missing.code], [404, "VM_NOT_FOUND"]);
    assert.deepEqual(
      [(await apiError(vm.delete())).status, (await apiError(vm.exec("true"))).code],
      [404, "VM_NOT_FOUND"],
    );

    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [
        "POST /v5/vms 200",
        "PUT /v5/vms/:id/fs/write 204",
        "POST /v5/vms/:id/exec-await 200",
        "POST /v5/vms/:id/exec-await 200",
        "GET /v5/vms/:id/fs/read 200",
        "DELETE /v5/vms/:id 204",
        "GET /v5/vms/:id 404",
        "DELETE /v5/vms/:id 404",
        "POST /v5/vms/:id/exec-await 404",
      ],
    );
    assert.equal(emulator.countRequests(/exec-await$/), 3);
    for (const request of emulator.requests) {
      assert.equal(request.headers.authorization, `Bearer ${emulator.apiKey}`);
      // Every call may go to the background except the raw-bytes read, which never does.
      const expected = request.route.endsWith("fs/read") ? undefined : "5";
      assert.equal(request.headers["x-freestyle-background-after-secs"], expected, request.route);
    }
    assert.deepEqual(emulator.unknownRoutes, []);
  });

  it("exec: exit codes, separate stdout and stderr, env, stdin, no cwd field, timeout, linuxUser", async () => {
    const { vm } = await create();
    const failed = await vm.exec({ command: "echo partial; echo bad >&2; exit 7" });
    assert.deepEqual(failed, { stdout: "partial\n", stderr: "bad\n", statusCode: 7 });

    const input = await vm.exec({ command: "cat; echo", stdin: Buffer.from("from stdin").toString("base64") });
    assert.equal(input.stdout, "from stdin\n");

    await vm.fs.mkdir(workspace("sub/dir"));
    const moved = await vm.exec({ command: 'cd sub/dir && basename "$PWD" && echo $A$B', env: { A: "x", B: "y" } });
    assert.equal(moved.stdout, "dir\nxy\n");
    const started = await vm.exec('basename "$PWD"');
    assert.notEqual(started.stdout, "dir\n", "a command does not inherit another's cd");

    const before = Date.now();
    const killed = await vm.exec({ command: "echo begun; sleep 20", timeoutMs: 400 });
    assert.equal(killed.statusCode, null, "a command killed by its timeout has no status");
    assert.equal(killed.stdout, "begun\n");
    assert.ok(Date.now() - before < 5_000);

    assert.equal((await vm.linuxUser("root").exec("echo as root")).stdout, "as root\n");
    const stranger = await apiError(vm.linuxUser("nobody-here").exec("true"));
    assert.deepEqual([stranger.status, stranger.code], [404, "USER_NOT_FOUND"]);
    const badEnv = await apiError(vm.exec({ command: "true", env: { "NOT-POSIX": "x" } }));
    assert.deepEqual([badEnv.status, badEnv.code], [400, "BAD_REQUEST"]);
    assert.equal((await apiError(vm.exec({ command: "true", timeoutMs: 86_400_001 }))).status, 400);
    assert.equal((await apiError(vm.exec({ command: "true", stdin: "%%%" }))).status, 400);
  });

  it("lists by metadata and state across limit/offset pages of the small default size, foreign VMs included", async () => {
    const metadata = { suite: "list", team: "a b:c" };
    const ours = await Promise.all([1, 2, 3, 4].map(() => create({ metadata })));
    const other = await create({ metadata: { suite: "other" } });
    const foreignId = await emulator.seedForeignSandbox({ ...metadata, owner: "someone-else" });
    emulator.resetRequests();

    const filter = "suite:list,team:a b:c";
    const seen: string[] = [];
    let offset = 0;
    let pages = 0;
    for (;;) {
      const page = await freestyle.vms.list({ metadata: filter, offset });
      pages += 1;
      assert.equal(page.totalCount, 5);
      assert.ok(page.vms.length <= 3, "the emulator's page size is 3");
      seen.push(...page.vms.map((entry) => entry.id));
      offset += page.vms.length;
      if (page.vms.length === 0 || offset >= page.totalCount) break;
    }
    assert.equal(pages, 2);
    assert.deepEqual(seen.sort(), [...ours.map((entry) => entry.vmId), foreignId].sort());
    assert.match(emulator.requests[0]?.path ?? "", /metadata=suite%3Alist%2Cteam%3Aa\+b%3Ac/);

    const limited = await freestyle.vms.list({ metadata: "suite:other", limit: 1 });
    assert.deepEqual(
      limited.vms.map((entry) => entry.id),
      [other.vmId],
    );
    assert.equal((await freestyle.vms.list({ limit: 50 })).vms.length, 3, "limit cannot raise the page size");

    await ours[0]!.vm.pause();
    const paused = await freestyle.vms.list({ state: "paused" });
    assert.deepEqual(
      paused.vms.map((entry) => entry.id),
      [ours[0]!.vmId],
    );
    assert.equal(paused.pausedCount, 1);
    assert.equal((await apiError(freestyle.vms.list({ state: "sleeping" as never }))).status, 400);
    assert.equal((await apiError(freestyle.vms.list({ metadata: "no-colon" }))).status, 400);
    assert.equal(emulator.liveSandboxes().find((entry) => entry.id === foreignId)?.foreign, true);
  });

  it("a wrong or missing credential is refused with 401 UNAUTHORIZED and creates nothing", async () => {
    emulator.resetRequests();
    const wrongKey = new Freestyle({ ...emulator.sdkOptions, apiKey: "fs_wrong" });
    const refused = await apiError(wrongKey.vms.create({ firewall: egress }));
    assert.deepEqual([refused.status, refused.code], [401, "UNAUTHORIZED"]);
    assert.deepEqual(emulator.liveSandboxes(), []);
    const { vmId } = await create();
    assert.equal((await apiError(wrongKey.vms.get(vmId))).status, 401);

    const identity = new Freestyle({ ...emulator.sdkOptions, apiKey: undefined, identityAccessToken: "token" });
    assert.equal((await apiError(identity.vms.ref(vmId).exec("true"))).status, 401);
    const keyAsIdentity = new Freestyle({
      ...emulator.sdkOptions,
      apiKey: undefined,
      identityAccessToken: emulator.apiKey,
    });
    assert.equal((await keyAsIdentity.vms.ref(vmId).exec("echo ok")).stdout, "ok\n", "the API reads keys there too");
    const stack = new Freestyle({
      ...emulator.sdkOptions,
      apiKey: undefined,
      stackAccessToken: "stack",
      teamId: "team",
    });
    assert.equal((await apiError(stack.vms.list())).status, 401);

    const bare = await fetch(`${emulator.baseUrl}/v5/vms`);
    assert.equal(bare.status, 401);
    assert.equal(((await bare.json()) as { code: string }).code, "UNAUTHORIZED");
    const bothHeaders = await fetch(`${emulator.baseUrl}/v5/vms`, {
      headers: { authorization: `Bearer ${emulator.apiKey}`, "x-freestyle-identity-access-token": "other" },
    });
    assert.equal(bothHeaders.status, 401, "every credential presented must be the key");
    assert.deepEqual(
      emulator.requests.filter((request) => request.status === 401).map((request) => request.route),
      ["POST /v5/vms", "GET /v5/vms/:id", "POST /v5/vms/:id/exec-await", "GET /v5/vms", "GET /v5/vms", "GET /v5/vms"],
    );
  });

  it("files: binary-safe write and read, ranges, mode, dir, mkdir, stat, exists, remove, and refused paths", async () => {
    const { vm } = await create();
    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    await vm.fs.writeFile(workspace("bin/all.bin"), bytes);
    const read = await vm.fs.readFile(workspace("bin/all.bin"));
    assert.ok(read instanceof Uint8Array);
    assert.deepEqual(Buffer.from(read), Buffer.from(bytes));
    assert.deepEqual([...(await vm.fs.readFile(workspace("bin/all.bin"), { offset: 10, length: 3 }))], [10, 11, 12]);
    assert.deepEqual((await vm.fs.readFile(workspace("bin/all.bin"), { offset: 254 })).length, 2);
    const digest = await vm.exec("sha256sum bin/all.bin");
    assert.equal(digest.stdout?.split(" ")[0], createHash("sha256").update(bytes).digest("hex"));

    await vm.fs.writeFile(workspace("run.sh"), "#!/bin/sh\necho ran\n", { mode: 0o755 });
    assert.equal((await vm.exec("./run.sh")).stdout, "ran\n");
    assert.equal((await vm.fs.stat(workspace("run.sh"))).permissions, "0755");
    await vm.fs.writeTextFile(workspace("run.sh"), "#!/bin/sh\necho again\n");
    assert.equal((await vm.fs.stat(workspace("run.sh"))).permissions, "0755", "a rewrite keeps the mode");
    assert.equal((await vm.fs.stat(workspace("bin/all.bin"))).permissions, "0600", "a new file gets 0600");

    await vm.fs.mkdir(workspace("a/b/c"));
    await vm.fs.mkdir(workspace("a/b/c"));
    const entries = (await vm.fs.readDir(workspace(""))).filter((entry) => !entry.name.startsWith("."));
    assert.deepEqual(entries.map((entry) => `${entry.kind} ${entry.name}`).sort(), [
      "directory a",
      "directory bin",
      "file run.sh",
    ]);
    const stat = await vm.fs.stat(workspace("bin/all.bin"));
    assert.deepEqual(
      [stat.size, stat.isFile, stat.isDirectory, stat.isSymlink, stat.owner],
      [256, true, false, false, "root"],
    );
    assert.ok(!Number.isNaN(Date.parse(stat.modified)));
    assert.equal((await vm.fs.stat(workspace("a"))).isDirectory, true);
    assert.equal(await vm.fs.exists(workspace("a/b/c")), true);
    await vm.fs.remove(workspace("a"));
    assert.equal(await vm.fs.exists(workspace("a/b/c")), false);

    const missing = await apiError(vm.fs.readFile(workspace("missing.txt")));
    assert.deepEqual([missing.status, missing.code], [404, "FILE_NOT_FOUND"]);
    assert.equal((await apiError(vm.fs.remove(workspace("missing.txt")))).code, "FILE_NOT_FOUND");
    assert.equal((await apiError(vm.fs.stat(workspace("missing")))).status, 404);
    assert.equal((await apiError(vm.fs.readDir(workspace("missing")))).status, 404);
    assert.equal((await apiError(vm.fs.readFile("relative.txt"))).code, "BAD_REQUEST", "paths must be absolute");
    assert.equal((await apiError(vm.fs.writeFile(workspace("../escape.txt"), "x"))).code, "BAD_REQUEST");
    const outside = await apiError(vm.fs.readFile("/etc/hostname"));
    assert.deepEqual([outside.status, outside.code], [400, "NOT_EMULATED"]);
    assert.equal((await apiError(vm.fs.exists("/etc"))).code, "NOT_EMULATED", "never a false 'does not exist'");
    assert.equal((await apiError(vm.fs.readFile(workspace("bin/all.bin"), { offset: 999 }))).status, 416);
  });

  it("a file above 8 MiB goes through a resumable upload session and arrives intact", async () => {
    const { vm } = await create();
    const size = 9 * 1024 * 1024 + 7;
    const content = Buffer.alloc(size);
    for (let index = 0; index < size; index += 4096) content.writeUInt32BE(index, index);
    emulator.resetRequests();
    const progress: number[] = [];
    await vm.fs.writeFile(workspace("big.bin"), content, {
      chunkSize: 4 * 1024 * 1024,
      onProgress: ({ completedBytes }) => progress.push(completedBytes),
    });
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [
        "POST /v5/vms/:id/fs/uploads 200",
        "PUT /v5/vms/:id/fs/uploads/:uploadId 200",
        "PUT /v5/vms/:id/fs/uploads/:uploadId 200",
        "PUT /v5/vms/:id/fs/uploads/:uploadId 200",
        "POST /v5/vms/:id/fs/uploads/:uploadId/commit 204",
      ],
    );
    assert.deepEqual(progress, [4 * 1024 * 1024, 8 * 1024 * 1024, size]);
    const digest = await vm.exec("sha256sum big.bin");
    assert.equal(digest.stdout?.split(" ")[0], createHash("sha256").update(content).digest("hex"));
    assert.equal((await vm.fs.stat(workspace("big.bin"))).size, size);
  });

  it("pause keeps files and an exec wakes the VM; start and pause answer the VM; update merges metadata", async () => {
    const { vm, vmId } = await create({ metadata: { keep: "yes", drop: "me" } });
    await vm.fs.writeTextFile(workspace("kept.txt"), "kept");
    assert.equal((await vm.pause()).state, "paused");
    assert.equal((await vm.pause()).state, "paused", "pausing a paused VM is harmless");
    assert.equal(emulator.liveSandboxes()[0]?.state, "paused");
    assert.equal((await vm.exec("cat kept.txt")).stdout, "kept");
    assert.equal((await vm.data()).state, "running", "an exec starts a paused VM");
    await vm.pause();
    assert.equal((await vm.start()).state, "running");

    const updated = await vm.update({ metadata: { drop: "", added: "1" }, displayName: "renamed", ttlSeconds: 3600 });
    assert.deepEqual(updated.metadata, { keep: "yes", added: "1" });
    assert.equal(updated.displayName, "renamed");
    assert.equal(updated.ttlSeconds, 3600);
    assert.deepEqual(emulator.liveSandboxes()[0]?.metadata, { keep: "yes", added: "1" });
    assert.equal((await freestyle.vms.get(vmId)).ttlSeconds, 3600);
  });

  it("slugs address VMs, are unique unless reassigned, and are validated", async () => {
    const first = await create({ slug: "build-box" });
    assert.equal((await freestyle.vms.get("build-box")).id, first.vmId);
    assert.equal((await freestyle.vms.ref("build-box").exec("echo by slug")).stdout, "by slug\n");
    const taken = await apiError(create({ slug: "build-box" }));
    assert.deepEqual([taken.status, taken.code], [409, "SLUG_TAKEN"]);
    assert.equal(emulator.liveSandboxes().length, 1, "a refused create leaves nothing behind");
    const second = await create({ slug: "build-box", reassignSlug: true });
    assert.equal((await freestyle.vms.get("build-box")).id, second.vmId);
    assert.equal((await first.vm.data()).slug, null, "the old holder keeps running without its slug");
    assert.equal((await freestyle.vms.list({ slug: "build-box" })).vms[0]?.id, second.vmId);
    const refusedUpdate = await apiError(first.vm.update({ slug: "build-box", metadata: { changed: "yes" } }));
    assert.deepEqual([refusedUpdate.status, refusedUpdate.code], [409, "SLUG_TAKEN"]);
    assert.deepEqual((await first.vm.data()).metadata, {}, "a refused update changes nothing");
    assert.equal((await first.vm.update({ slug: "other-box" })).slug, "other-box");
    assert.equal((await freestyle.vms.ref("other-box").update({ slug: "" })).slug, null, "an empty slug clears it");
    for (const slug of ["-lead", "trail-", "dou--ble", "UPPER", "x".repeat(64)]) {
      assert.equal((await apiError(create({ slug }))).status, 400, slug);
    }
  });

  it("validates create: firewall required, metadata limits, limits in seconds, unknown snapshots", async () => {
    const raw = (body: unknown) =>
      fetch(`${emulator.baseUrl}/v5/vms`, {
        method: "POST",
        headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const noFirewall = await raw({});
    assert.equal(noFirewall.status, 400);
    assert.match(((await noFirewall.json()) as { message: string }).message, /firewall is required/);
    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`k${index}`, "v"]));
    assert.equal((await apiError(create({ metadata: tooMany }))).status, 400);
    assert.equal((await apiError(create({ metadata: { ["k".repeat(64)]: "v" } }))).status, 400);
    assert.equal((await apiError(create({ metadata: { k: "v".repeat(64) } }))).status, 400);
    assert.equal((await apiError(create({ ttlSeconds: -2 }))).status, 400);
    const snapshot = await apiError(create({ snapshotId: "sh-does-not-exist" }));
    assert.deepEqual([snapshot.status, snapshot.code], [404, "SNAPSHOT_NOT_FOUND"]);
    const small = await create({ snapshotId: "freestyle/ubuntu-sm", ttlSeconds: -1, maxRunSeconds: null });
    assert.deepEqual(small.data.resources, { cpu: 2, memory: 4096, storage: 16384 });
    assert.equal(small.data.ttlSeconds, null);
    assert.deepEqual(emulator.liveSandboxes().length, 1);
  });

  it("enforces ttlSeconds, autoDeleteSeconds, maxRunSeconds and maxRunTotalSeconds with timers", async () => {
    const ttl = await create({ ttlSeconds: 1 });
    const ephemeral = await create({ autoDeleteSeconds: 0 });
    const capped = await create({ maxRunSeconds: 1 });
    const budget = await create({ maxRunTotalSeconds: 1 });
    await ephemeral.vm.pause();
    await delay(1_300);
    assert.deepEqual(
      emulator
        .liveSandboxes()
        .map((entry) => `${entry.id} ${entry.state}`)
        .sort(),
      [`${capped.vmId} paused`, `${budget.vmId} paused`].sort(),
    );
    assert.equal((await apiError(ttl.vm.data())).code, "VM_NOT_FOUND");
    assert.equal((await capped.vm.start()).state, "running", "maxRunSeconds resets with every run");
    const spent = await apiError(budget.vm.start());
    assert.deepEqual([spent.status, spent.code], [409, "VM_RUN_BUDGET_EXHAUSTED"]);
    assert.equal((await apiError(budget.vm.exec("true"))).status, 409, "nor does an exec wake it");
    await budget.vm.update({ maxRunTotalSeconds: -1 });
    assert.equal((await budget.vm.exec("echo raised")).stdout, "raised\n");
  });

  it("interactive sessions and published ports are not emulated: 404 logged, or 400 NOT_EMULATED, never faked", async () => {
    const { vm, vmId } = await create();
    emulator.resetRequests();
    await assert.rejects(vm.pty.open({ onData: () => {}, onExit: () => {} }), /404/);
    assert.equal((await apiError(vm.pty.list())).status, 404);
    assert.equal((await apiError(vm.firewallRules())).status, 404);
    const tls = await apiError(
      create({
        tls: {
          rules: [{ action: "allow", domain: "app.style.dev", source: { public: true }, destination: { port: 8000 } }],
        },
      }),
    );
    assert.deepEqual([tls.status, tls.code], [400, "NOT_EMULATED"]);
    const vpc = await apiError(create({ vpcs: [{ vpcId: "vpc-1" }] }));
    assert.equal(vpc.code, "NOT_EMULATED");
    assert.deepEqual(emulator.unknownRoutes, [
      `GET /v5/vms/${vmId}/pty`,
      `GET /v5/vms/${vmId}/pty/sessions`,
      `GET /v5/firewall/rules?vmId=${vmId}`,
    ]);
    assert.equal(emulator.liveSandboxes().length, 1);
  });

  it("a VM without egress on a backend that cannot take it offline is refused: 400 NOT_EMULATED", async () => {
    // Explicitly unisolated: the default backend is namespaced (and honours the firewall) wherever bubblewrap works.
    const root = await mkdtemp(join(tmpdir(), "sandport-freestyle-none-"));
    const runtime = new LocalRuntime({ root, isolation: "none" });
    const unisolated = await startFreestyleEmulator({ backend: runtime });
    try {
      const isolated = await apiError(new Freestyle(unisolated.sdkOptions).vms.create({ firewall: { rules: [] } }));
      assert.deepEqual([isolated.status, isolated.code], [400, "NOT_EMULATED"], "the none backend cannot go offline");
      assert.deepEqual(unisolated.liveSandboxes(), []);
    } finally {
      await unisolated.stop();
      await destroyEverySandbox(runtime);
      await rm(root, { recursive: true, force: true });
    }
  });
});
