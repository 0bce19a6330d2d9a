// Wire tests: the real Modal SDK (modal 0.11.1, Modal Labs) against the Modal
// emulator, which runs every sandbox for real on its backend runtime.

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import type { LaunchSpec, SandboxRuntime } from "@sandport/core";
import { LocalRuntime } from "@sandport/local";
import type { SandboxExecParams } from "modal";
import { delay } from "../../assertions/index.js";
import { destroyEverySandbox } from "../harness/backend.js";
import { type ModalEmulator, startModalEmulator } from "./emulator.js";
import { clientFor, loadModal, type Modal, type ModalClient } from "./sdk.fixture.js";

type App = Awaited<ReturnType<ModalClient["apps"]["fromName"]>>;
type Sandbox = Awaited<ReturnType<ModalClient["sandboxes"]["create"]>>;
type CreateParams = NonNullable<Parameters<ModalClient["sandboxes"]["create"]>[2]>;

/** The SDK's hidden control-plane client, as far as the listing's resource report goes. */
interface ResourceListing {
  sandboxListV2(request: {
    appId: string;
  }): Promise<{ sandboxes: { id: string; resourceInfo?: Record<string, unknown> }[] }>;
}

/** The gRPC status code of a nice-grpc `ClientError` (the SDK passes them through untranslated). */
function grpcCode(error: unknown): number | undefined {
  return (error as { code?: unknown }).code as number | undefined;
}

describe("the installed modal package", () => {
  it("is the Modal Labs SDK at exactly 0.11.1 (modal@latest is an unrelated browser package)", async () => {
    const modal = await loadModal();
    assert.equal(typeof modal.ModalClient, "function");
    assert.equal(typeof modal.SandboxFilesystemNotFoundError, "function");
    const entry = createRequire(import.meta.url).resolve("modal");
    const manifest = JSON.parse(await readFile(join(dirname(dirname(entry)), "package.json"), "utf8"));
    assert.equal(manifest.version, "0.11.1");
    assert.match(manifest.repository.url, /modal-labs\//);
  });
});

describe("Modal emulator with the real modal SDK", () => {
  let modal: Modal;
  let emulator: ModalEmulator;
  let client: ModalClient;
  let app: App;

  before(async () => {
    modal = await loadModal();
    emulator = await startModalEmulator();
    client = clientFor(modal, emulator).client;
    app = await client.apps.fromName("sandport-tests", { createIfMissing: true });
  });

  after(() => emulator.stop());

  // A failed test must not leave sandboxes behind for the next one's assertions.
  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) {
      await (await client.sandboxes.fromId(id)).terminate().catch(() => undefined);
    }
  });

  const create = (params: CreateParams = {}) =>
    client.sandboxes.create(app, client.images.fromRegistry("alpine:3.21"), { timeoutMs: 60_000, ...params });

  it("create → write a file → exec reads it with cwd and env → read it back → terminate, with exact requests and credentials", async () => {
    const fresh = clientFor(modal, emulator).client;
    assert.equal(
      process.env.MODAL_SERVER_URL,
      undefined,
      "the server URL was in the environment only while the client was built",
    );
    emulator.resetRequests();
    const freshApp = await fresh.apps.fromName("sandport-tests");
    assert.equal(freshApp.appId, app.appId);
    const sandbox = await fresh.sandboxes.create(freshApp, fresh.images.fromRegistry("alpine:3.21"), {
      env: { GREETING: "hi" },
      tags: { owner: "me" },
      workdir: "/workspace/project",
      timeoutMs: 60_000,
    });
    assert.match(sandbox.sandboxId, /^sb-[0-7][0-9A-HJKMNP-TV-Z]{25}$/, "a V2 (ULID) sandbox id");
    assert.deepEqual(emulator.liveSandboxes(), [
      { id: sandbox.sandboxId, metadata: { owner: "me" }, foreign: false, state: "running" },
    ]);

    await sandbox.filesystem.writeText("hello from modal\n", "/workspace/project/notes/hello.txt");
    const command = await sandbox.exec(["sh", "-c", 'cat notes/hello.txt; echo "$GREETING $EXTRA from $(pwd)"'], {
      env: { EXTRA: "there" },
      timeoutMs: 10_000,
    });
    const [stdout, stderr, exitCode] = await Promise.all([
      command.stdout.readText(),
      command.stderr.readText(),
      command.wait(),
    ]);
    assert.equal(exitCode, 0);
    assert.match(stdout, /^hello from modal\nhi there from \/.+\/project\n$/);
    assert.equal(stderr, "");
    assert.equal(await sandbox.filesystem.readText("/workspace/project/notes/hello.txt"), "hello from modal\n");

    await sandbox.terminate();
    assert.deepEqual(emulator.liveSandboxes(), []);
    assert.equal(await sandbox.poll(), 137, "a terminated sandbox reports 137");

    const router = "rpc modal.task_command_router.TaskCommandRouter/";
    const control = "rpc modal.client.ModalClient/";
    assert.deepEqual(
      emulator.requests.map(
        (request) => `${request.route.replace(router, "router ").replace(control, "")} ${request.status}`,
      ),
      [
        "AuthTokenGet 200",
        "AppGetOrCreate 200",
        "EnvironmentGetOrCreate 200",
        "ImageGetOrCreate 200",
        "SandboxCreateV2 200",
        // filesystem.writeText: the helper exec, its stdin stream, its exit.
        "router TaskExecStart 200",
        "router TaskExecStdinWriteStream 200",
        "router TaskExecWait 200",
        // exec: start, then the caller reads both streams and waits.
        "router TaskExecStart 200",
        "router TaskExecStdioRead 200",
        "router TaskExecStdioRead 200",
        "router TaskExecWait 200",
        // filesystem.readText: start, wait, then stdout.
        "router TaskExecStart 200",
        "router TaskExecWait 200",
        "router TaskExecStdioRead 200",
        "SandboxTerminateV2 200",
        "SandboxWaitV2 200",
      ],
    );
    for (const request of emulator.requests) {
      if (request.route.startsWith(control)) {
        assert.equal(request.headers["x-modal-token-id"], emulator.tokenId);
        assert.equal(request.headers["x-modal-token-secret"], emulator.tokenSecret);
        if (!request.route.endsWith("/AuthTokenGet")) assert.ok(request.headers["x-modal-auth-token"]);
      } else {
        assert.match(request.headers.authorization ?? "", /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
        assert.equal(request.headers["x-modal-token-secret"], undefined, "the token never goes to the router");
      }
      assert.equal(request.grpcStatus, 0);
    }
    assert.deepEqual(emulator.unknownRoutes, []);
  });

  it("exec: argv reaches the program unchanged, exit codes, separate streams, ignored streams, workdir, timeout", async () => {
    const sandbox = await create({ workdir: "/workspace/home" });
    const run = async (argv: string[], params: SandboxExecParams & { mode?: "text" } = {}) => {
      const command = await sandbox.exec(argv, { timeoutMs: 10_000, ...params });
      const [stdout, stderr, exitCode] = await Promise.all([
        command.stdout.readText(),
        command.stderr.readText(),
        command.wait(),
      ]);
      return { stdout, stderr, exitCode };
    };

    assert.deepEqual(await run(["printf", "%s|", "a b", "$HOME", "'q'"]), {
      stdout: "a b|$HOME|'q'|",
      stderr: "",
      exitCode: 0,
    });
    assert.deepEqual(await run(["sh", "-c", "echo out; echo err >&2; exit 7"]), {
      stdout: "out\n",
      stderr: "err\n",
      exitCode: 7,
    });
    assert.deepEqual(await run(["sh", "-c", "echo out; echo err >&2"], { stdout: "ignore" }), {
      stdout: "",
      stderr: "err\n",
      exitCode: 0,
    });
    await sandbox.filesystem.makeDirectory("/workspace/elsewhere/deep");
    assert.match((await run(["pwd"])).stdout, /\/home\n$/, "the sandbox workdir is the default cwd");
    assert.match((await run(["pwd"], { workdir: "/workspace/elsewhere/deep" })).stdout, /\/elsewhere\/deep\n$/);
    // An exec runs anywhere in the container: a workdir outside the workspace is a directory like any other.
    assert.equal((await run(["pwd"], { workdir: "/tmp" })).stdout, "/tmp\n");
    await assert.rejects(sandbox.exec(["pwd"], { workdir: "/tmp/absent" }), (error) => grpcCode(error) === 5);
    await assert.rejects(sandbox.exec(["pwd"], { workdir: "/tmp/../etc" }), (error) => grpcCode(error) === 3);

    // ContainerProcess._poll (TaskExecPoll) is what the SDK's own file writes use to check an exec.
    const sleeper = await sandbox.exec(["sleep", "0.5"]);
    assert.equal(await sleeper._poll(), null);
    assert.equal(await sleeper.wait(), 0);
    assert.equal(await sleeper._poll(), 0);

    // Only wait(): the SDK reads output under the exec's deadline, so reading a timed-out exec's
    // streams races the kill and may fail with its own "Deadline exceeded" instead.
    const started = Date.now();
    const slow = await sandbox.exec(["sleep", "30"], { timeoutMs: 1_000 });
    assert.equal(await slow.wait(), 137, "a timed-out exec is killed");
    assert.ok(Date.now() - started < 10_000);
  });

  it("exec output streams while the command runs", async () => {
    const sandbox = await create();
    const command = await sandbox.exec(["sh", "-c", "echo first; sleep 2; echo second"], { timeoutMs: 10_000 });
    const reader = command.stdout.getReader();
    const started = Date.now();
    const first = await reader.read();
    assert.equal(first.value, "first\n");
    assert.ok(Date.now() - started < 1_800, "the first line arrives before the command ends");
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += chunk.value;
    assert.equal(rest, "second\n");
    assert.equal(await command.wait(), 0);
  });

  it("files: binary-safe both ways, list, stat, mkdir, remove, and the SDK's typed errors", async () => {
    const sandbox = await create();
    const { filesystem } = sandbox;
    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    await filesystem.writeBytes(bytes, "/workspace/bin/all.bin");
    assert.deepEqual(Buffer.from(await filesystem.readBytes("/workspace/bin/all.bin")), Buffer.from(bytes));
    const digest = await sandbox.exec([
      "sh",
      "-c",
      "od -An -tx1 bin/all.bin | tr -d ' \\n' | head -c 16; echo; wc -c < bin/all.bin",
    ]);
    assert.equal((await digest.stdout.readText()).replace(/\s+/g, " "), "0001020304050607 256 ");

    const made = await sandbox.exec(["sh", "-c", "mkdir -p out && printf 'made by exec' > out/result.txt"]);
    assert.equal(await made.wait(), 0);
    assert.equal(await filesystem.readText("/workspace/out/result.txt"), "made by exec");

    // The default backend keeps its TMPDIR (`.tmp`) in the workspace.
    const listing = (await filesystem.listFiles("/workspace")).filter((entry) => !entry.name.startsWith("."));
    assert.deepEqual(
      listing.map((entry) => [entry.name, entry.path, entry.type]),
      [
        ["bin", "/workspace/bin", "directory"],
        ["out", "/workspace/out", "directory"],
      ],
    );
    const info = await filesystem.stat("/workspace/bin/all.bin");
    assert.deepEqual([info.name, info.path, info.type, info.size], ["all.bin", "/workspace/bin/all.bin", "file", 256]);
    assert.equal(info.mode & 0o170000, 0o100000, "mode is the whole st_mode");
    assert.match(info.permissions, /^0[0-7]{3}$/);
    assert.ok(Math.abs(info.modifiedTime - Date.now() / 1000) < 120);

    await filesystem.makeDirectory("/workspace/a/b/c");
    await filesystem.makeDirectory("/workspace/a/b/c");
    await assert.rejects(
      filesystem.makeDirectory("/workspace/a/b/c", { createParents: false }),
      modal.SandboxFilesystemPathAlreadyExistsError,
    );
    await assert.rejects(
      filesystem.makeDirectory("/workspace/x/y", { createParents: false }),
      modal.SandboxFilesystemNotFoundError,
    );
    await filesystem.writeText("leaf", "/workspace/a/b/c/leaf.txt");
    await assert.rejects(filesystem.remove("/workspace/a"), modal.SandboxFilesystemDirectoryNotEmptyError);
    await filesystem.remove("/workspace/a", { recursive: true });
    await assert.rejects(filesystem.stat("/workspace/a"), modal.SandboxFilesystemNotFoundError);
    await assert.rejects(filesystem.remove("/workspace/a"), modal.SandboxFilesystemNotFoundError);
    await assert.rejects(filesystem.readText("/workspace/missing.txt"), modal.SandboxFilesystemNotFoundError);
    await assert.rejects(filesystem.readBytes("/workspace/bin"), modal.SandboxFilesystemIsADirectoryError);
    await assert.rejects(filesystem.listFiles("/workspace/bin/all.bin"), modal.SandboxFilesystemNotADirectoryError);
    await assert.rejects(
      filesystem.writeText("x", "/workspace/bin/all.bin/x"),
      modal.SandboxFilesystemNotADirectoryError,
    );
    await assert.rejects(filesystem.writeText("x", "/workspace/bin"), modal.SandboxFilesystemIsADirectoryError);
    await assert.rejects(filesystem.readText("/etc/hostname"), modal.SandboxFilesystemPermissionError);
    assert.deepEqual(emulator.unknownRoutes, []);
  });

  it("lists by tags, newest first, in pages the SDK must follow; foreign sandboxes are listed as the provider would", async () => {
    const tags = { suite: "list", "team/name": "a b&c=d" };
    const ours: Sandbox[] = [];
    for (let index = 0; index < 4; index++) ours.push(await create({ tags }));
    const other = await create({ tags: { suite: "other" } });
    const foreignId = await emulator.seedForeignSandbox(
      { ...tags, owner: "someone-else" },
      { appName: "sandport-tests" },
    );
    emulator.resetRequests();

    const seen: string[] = [];
    for await (const sandbox of client.sandboxes.list({ appId: app.appId, tags })) seen.push(sandbox.sandboxId);
    assert.deepEqual(seen, [foreignId, ...ours.map((sandbox) => sandbox.sandboxId).reverse()]);
    assert.equal(
      emulator.countRequests("rpc modal.client.ModalClient/SandboxListV2"),
      3,
      "pages of 3, 2, then an empty one",
    );

    await ours[0]!.setTags({ suite: "moved" });
    assert.deepEqual(await ours[0]!.getTags(), { suite: "moved" });
    assert.equal(emulator.liveSandboxes().find((entry) => entry.id === ours[0]!.sandboxId)?.metadata.suite, "moved");
    const moved: string[] = [];
    for await (const sandbox of client.sandboxes.list({ appId: app.appId, tags: { suite: "moved" } }))
      moved.push(sandbox.sandboxId);
    assert.deepEqual(moved, [ours[0]!.sandboxId]);

    await other.terminate();
    const remaining: string[] = [];
    for await (const sandbox of client.sandboxes.list({ appId: app.appId })) remaining.push(sandbox.sandboxId);
    assert.equal(remaining.length, 5, "terminated sandboxes are not listed");
    assert.equal(remaining.includes(other.sandboxId), false);
  });

  it("fromId and fromName reattach; a terminated sandbox is gone for lookups and reports its end", async () => {
    const named = await create({ name: "reattach-me" });
    await assert.rejects(create({ name: "reattach-me" }), modal.AlreadyExistsError);

    emulator.resetRequests();
    const byId = await client.sandboxes.fromId(named.sandboxId);
    const command = await byId.exec(["echo", "again"]);
    assert.equal(await command.stdout.readText(), "again\n");
    assert.deepEqual(
      emulator.requests.slice(0, 3).map((request) => request.route.split("/").pop()),
      ["SandboxGetTaskIdV2", "SandboxGetCommandRouterAccess", "TaskExecStart"],
    );
    const byName = await client.sandboxes.fromName("sandport-tests", "reattach-me");
    assert.equal(byName.sandboxId, named.sandboxId);
    assert.equal(await byName.poll(), null, "running");

    await byId.terminate();
    await assert.rejects(client.sandboxes.fromName("sandport-tests", "reattach-me"), modal.NotFoundError);
    const terminated = await client.sandboxes.fromName("sandport-tests", "reattach-me", { includeTerminated: true });
    assert.equal(terminated.sandboxId, named.sandboxId);
    assert.equal(await terminated.wait(), 137);
    const stale = await client.sandboxes.fromId(named.sandboxId);
    await assert.rejects(stale.exec(["true"]), modal.ConflictError);
    await assert.rejects(
      named.filesystem.readText("/workspace/x"),
      modal.NotFoundError,
      "the cached router client finds no task",
    );
    const unknown = await client.sandboxes.fromId("sb-01ARZ3NDEKTSV4RRFFQ69G5FAV");
    await assert.rejects(unknown.poll(), (error) => grpcCode(error) === 5);
  });

  it("a sandbox ends when its timeout or idle timeout passes", async () => {
    const short = await create({ timeoutMs: 1_000 });
    const idle = await create({ idleTimeoutMs: 1_000 });
    const busy = await create({ idleTimeoutMs: 1_000 });
    const running = await busy.exec(["sleep", "1.6"]);
    await delay(1_300);
    assert.equal(await short.poll(), 124);
    assert.equal(await idle.poll(), 124);
    assert.equal(await busy.poll(), null, "a running exec keeps a sandbox from idling");
    assert.equal(await running.wait(), 0);
    assert.deepEqual(
      emulator.liveSandboxes().map((entry) => entry.id),
      [busy.sandboxId],
    );
  });

  it("a launch setting the backend cannot honour fails the create with its reason", async () => {
    // Explicitly unisolated: the default backend is namespaced (and honours blockNetwork) wherever bubblewrap works.
    const root = await mkdtemp(join(tmpdir(), "sandport-modal-none-"));
    const runtime = new LocalRuntime({ root, isolation: "none" });
    const unisolated = await startModalEmulator({ backend: runtime });
    try {
      const own = clientFor(modal, unisolated).client;
      const ownApp = await own.apps.fromName("sandport-tests", { createIfMissing: true });
      const image = own.images.fromRegistry("alpine:3.21");
      await assert.rejects(own.sandboxes.create(ownApp, image, { timeoutMs: 60_000, blockNetwork: true }), (error) => {
        assert.equal(grpcCode(error), 12);
        assert.match((error as Error).message, /network/);
        return true;
      });
      assert.deepEqual(unisolated.liveSandboxes(), []);
    } finally {
      await unisolated.stop();
      await destroyEverySandbox(runtime);
      await rm(root, { recursive: true, force: true });
    }
  });

  it("connect tokens and watch are refused as not emulated, and logged", async () => {
    emulator.resetRequests();
    const sandbox = await create();
    await assert.rejects(sandbox.createConnectToken({ port: 8080 }), (error) => grpcCode(error) === 12);
    const watch = sandbox.filesystem.watch("/workspace")[Symbol.asyncIterator]();
    await assert.rejects(watch.next(), modal.SandboxFilesystemError);
    assert.deepEqual(emulator.unknownRoutes, [
      "POST /modal.client.ModalClient/SandboxCreateConnectTokenV2",
      "POST /modal.task_command_router.TaskCommandRouter/TaskExecStart (modal-sandbox-fs-tools Watch)",
    ]);
  });

  it("refuses a wrong token id or secret with UNAUTHENTICATED and creates nothing", async () => {
    for (const params of [{ tokenSecret: "as-wrong" }, { tokenId: "ak-wrong" }]) {
      emulator.resetRequests();
      const { client: intruder } = clientFor(modal, emulator, params);
      await assert.rejects(
        intruder.apps.fromName("intruder-app", { createIfMissing: true }),
        (error) => grpcCode(error) === 16,
      );
      assert.deepEqual(
        emulator.requests.map((request) => `${request.route} ${request.status}`),
        ["rpc modal.client.ModalClient/AuthTokenGet 401"],
        "refused credentials are not retried",
      );
    }
    await assert.rejects(client.apps.fromName("intruder-app"), modal.NotFoundError);
  });
});

describe("Modal emulator command-router tokens", () => {
  let emulator: ModalEmulator;

  before(async () => {
    emulator = await startModalEmulator({ routerTokenTtlSeconds: 1 });
  });

  after(() => emulator.stop());

  it("an expired router JWT is refused; the SDK fetches a fresh one and retries", async () => {
    const modal = await loadModal();
    const { client } = clientFor(modal, emulator);
    const app = await client.apps.fromName("tokens", { createIfMissing: true });
    const sandbox = await client.sandboxes.create(app, client.images.fromRegistry("alpine:3.21"));
    await delay(1_100);
    emulator.resetRequests();
    const command = await sandbox.exec(["true"]);
    assert.equal(await command.wait(), 0);
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route.split("/").pop()} ${request.status}`),
      ["TaskExecStart 401", "SandboxGetCommandRouterAccess 200", "TaskExecStart 200", "TaskExecWait 200"],
    );
    await sandbox.terminate();
  });
});

describe("Modal emulator launch settings", () => {
  const launches: LaunchSpec[] = [];
  let root: string;
  let local: LocalRuntime;
  let emulator: ModalEmulator;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "sandport-modal-backend-"));
    local = new LocalRuntime({ root, isolation: "none" });
    // Records each launch, then launches without what isolation "none" refuses (network: false, limits).
    const recording = new Proxy(local, {
      get(target, property) {
        if (property === "launch") {
          return (spec: LaunchSpec, op?: Parameters<SandboxRuntime["launch"]>[1]) => {
            launches.push(spec);
            const { network: _network, resources: _resources, ...rest } = spec;
            return target.launch(rest, op);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    emulator = await startModalEmulator({ backend: recording });
  });

  after(async () => {
    await emulator.stop();
    await destroyEverySandbox(local);
    await rm(root, { recursive: true, force: true });
  });

  it("blockNetwork, the cpu and memory limits, env and the timeout reach the backend's launch; reservations alone bound nothing; the listing reports both", async () => {
    const modal = await loadModal();
    const { client } = clientFor(modal, emulator);
    const app = await client.apps.fromName("launch", { createIfMissing: true });
    const image = client.images.fromRegistry("alpine:3.21");
    const limited = await client.sandboxes.create(app, image, {
      blockNetwork: true,
      cpu: 0.25,
      cpuLimit: 0.5,
      memoryMiB: 128,
      memoryLimitMiB: 256,
      env: { A: "1" },
      timeoutMs: 30_000,
    });
    const plain = await client.sandboxes.create(app, image);
    const reserved = await client.sandboxes.create(app, image, { cpu: 0.5, memoryMiB: 256 });
    assert.deepEqual(launches, [
      { env: { A: "1" }, lifetimeMs: 90_000, network: "none", resources: { cpus: 0.5, memoryMiB: 256 } },
      { lifetimeMs: 360_000 },
      { lifetimeMs: 360_000 },
    ]);
    // The listing's SandboxInfo.resourceInfo, read through the SDK's control-plane client (its list drops it).
    const cp = (client as unknown as { cpClient: ResourceListing }).cpClient;
    const { sandboxes } = await cp.sandboxListV2({ appId: app.appId });
    const infoOf = (id: string) => sandboxes.find((entry) => entry.id === id)?.resourceInfo;
    assert.deepEqual(infoOf(limited.sandboxId), {
      memoryMb: { value: 128, isDefault: false },
      milliCpu: { value: 250, isDefault: false },
      gpuType: "",
      memoryMbMax: 256,
      ephemeralDiskMb: 0,
      milliCpuMax: 500,
    });
    assert.deepEqual(infoOf(plain.sandboxId), {
      memoryMb: { value: 128, isDefault: true },
      milliCpu: { value: 125, isDefault: true },
      gpuType: "",
      memoryMbMax: 0,
      ephemeralDiskMb: 0,
      milliCpuMax: 0,
    });
    assert.deepEqual(infoOf(reserved.sandboxId)?.milliCpu, { value: 500, isDefault: false });
    await reserved.terminate();
    const echo = await limited.exec(["sh", "-c", "echo $A"]);
    assert.equal(await echo.stdout.readText(), "1\n");
    await limited.terminate();
    await plain.terminate();
  });
});
