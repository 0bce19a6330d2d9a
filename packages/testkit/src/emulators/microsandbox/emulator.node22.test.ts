// Wire tests: the real microsandbox SDK (0.6.18, cloud backend) against the
// microsandbox emulator, which runs every sandbox for real on its backend runtime.

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { delay, waitFor } from "../../assertions/index.js";
import { destroyEverySandbox } from "../harness/backend.js";
import { type MicrosandboxEmulator, startMicrosandboxEmulator } from "./emulator.js";
import { microsandbox, onBackend } from "./sdk.fixture.js";

const { Sandbox, setDefaultBackend } = microsandbox;

describe("microsandbox emulator with the real microsandbox SDK", () => {
  let emulator: MicrosandboxEmulator;

  before(async () => {
    emulator = await startMicrosandboxEmulator();
    setDefaultBackend(emulator.sdkBackend);
  });

  after(() => emulator.stop());

  // A failed test must not leave sandboxes behind for the next one's assertions.
  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) {
      await fetch(`${emulator.apiUrl}/v1/sandboxes/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${emulator.apiKey}` },
      });
    }
    emulator.resetRequests();
  });

  const shell = (sandbox: microsandbox.Sandbox, script: string) => sandbox.exec("sh", ["-c", script]);

  it("create → write → exec with cwd and env → read → destroy, with the SDK's exact requests", async () => {
    const sandbox = await Sandbox.builder("lifecycle")
      .image("alpine:3.21")
      .env("GREETING", "hi")
      .labels({ owner: "me", run: "lifecycle" })
      .workdir("/work")
      .create();
    const [live] = emulator.liveSandboxes();
    assert.equal(sandbox.id, `cloud:${live?.id}`);
    assert.deepEqual(live, {
      id: live?.id,
      metadata: { owner: "me", run: "lifecycle" },
      foreign: false,
      state: "running",
    });

    await sandbox.fs().write("/work/one.txt", "one\n");
    const result = await sandbox.execWith("sh", (options) =>
      options.args(["-c", 'cat one.txt; echo "$GREETING $EXTRA"; echo oops >&2; exit 3']).env("EXTRA", "there"),
    );
    assert.equal(result.code, 3);
    assert.equal(result.success, false);
    assert.equal(result.stdout(), "one\nhi there\n");
    assert.deepEqual(Buffer.from(result.stderrBytes()), Buffer.from("oops\n"));

    await sandbox.fs().mkdir("/work/sub/deeper");
    const inSub = await sandbox.execWith("sh", (options) => options.args(["-c", "basename $PWD"]).cwd("/work/sub"));
    assert.equal(inSub.stdout(), "sub\n");
    await shell(sandbox, "printf made > sub/made.txt");
    assert.equal(await sandbox.fs().readToString("/work/sub/made.txt"), "made");

    await sandbox.destroy();
    assert.deepEqual(emulator.liveSandboxes(), []);
    await assert.rejects(Sandbox.get("lifecycle"), microsandbox.SandboxNotFoundError);

    const agent = "GET /v1/sandboxes/:id/agent 101";
    const byName = "GET /v1/sandboxes/by-name/:name 200";
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [
        "POST /v1/sandboxes 200",
        // One lookup and one agent connection per operation: write, exec, mkdir, exec, exec, read.
        ...Array.from({ length: 6 }, () => [byName, agent]).flat(),
        // destroy(): look up, stop, look up again, delete.
        byName,
        byName,
        byName,
        byName,
        "POST /v1/sandboxes/:id/stop 200",
        byName,
        "DELETE /v1/sandboxes/:id 200",
        "GET /v1/sandboxes/by-name/:name 404",
      ],
    );
    assert.equal(emulator.requests[0]?.path, "/v1/sandboxes?start=true&wait_for=running&wait_timeout=90");
    assert.deepEqual(
      emulator.agentOperations.map((operation) => operation.operation),
      [
        "core.fs.request OpenFile",
        "core.fs.request Write",
        "core.fs.request CloseHandle",
        "core.exec.request",
        "core.fs.request Mkdir",
        "core.exec.request",
        "core.exec.request",
        "core.fs.request OpenFile",
        "core.fs.request Read",
        "core.fs.request CloseHandle",
      ],
    );
    for (const request of emulator.requests) {
      assert.equal(request.headers.authorization, `Bearer ${emulator.apiKey}`);
      assert.equal(request.headers["user-agent"], "microsandbox-sdk/0.6.18");
    }
    assert.deepEqual(emulator.unknownRoutes, []);
  });

  it("keeps the builder's settings: resources, workdir, lifecycle, env and labels in the spec", async () => {
    await Sandbox.builder("settings")
      .image("python:3.12")
      .cpus(2)
      .memory(1024)
      .workdir("/app")
      .env("A", "1")
      .labels({ team: "core" })
      .maxDuration(600)
      .idleTimeout(300)
      .create();
    const handle = await Sandbox.get("settings");
    assert.equal(handle.status, "running");
    assert.ok(handle.createdAt instanceof Date);
    const spec = JSON.parse(handle.configJson) as Record<string, unknown>;
    assert.equal(spec.image, "python:3.12");
    assert.deepEqual(spec.resources, { vcpus: 2, memory_mib: 1024 });
    assert.equal((spec.runtime as { workdir: string }).workdir, "/app");
    assert.deepEqual(spec.env, [{ key: "A", value: "1" }]);
    assert.deepEqual(spec.labels, { team: "core" });
    assert.deepEqual(spec.lifecycle, { ephemeral: false, max_duration_secs: 600, idle_timeout_secs: 300 });
    assert.equal(await handle.remove(), undefined);
    assert.deepEqual(emulator.liveSandboxes(), []);
  });

  it("lists by labels in cursor pages of at most 3, foreign sandboxes included as the service would", async () => {
    const labels = { suite: "list", "team/name": "a b&c=d" };
    for (const name of ["l1", "l2", "l3", "l4"]) await Sandbox.builder(name).image("alpine").labels(labels).create();
    await Sandbox.builder("unrelated").image("alpine").labels({ suite: "other" }).create();
    const foreignId = await emulator.seedForeignSandbox({ ...labels, owner: "someone-else" });
    emulator.resetRequests();

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await Sandbox.listWith((list) => {
        list.labels(labels);
        return cursor === undefined ? list : list.cursor(cursor);
      });
      pages += 1;
      assert.ok(page.sandboxes.length <= 3, "the emulator's page size is 3");
      seen.push(...page.sandboxes.map((handle) => handle.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.equal(pages, 2);
    const expected = emulator
      .liveSandboxes()
      .filter((entry) => entry.metadata.suite === "list")
      .map((entry) => `cloud:${entry.id}`);
    assert.deepEqual(seen.sort(), expected.sort());
    assert.ok(seen.includes(`cloud:${foreignId}`));
    assert.equal(emulator.countRequests("GET /v1/sandboxes"), 2);
    assert.match(emulator.requests[0]?.path ?? "", /^\/v1\/sandboxes\?limit=20&labels=/);
    assert.match(emulator.requests[1]?.path ?? "", /[?&]cursor=/);

    const one = await Sandbox.listWith((list) => list.label("suite", "other").limit(1));
    assert.deepEqual(
      one.sandboxes.map((handle) => handle.name),
      ["unrelated"],
    );
    assert.equal(one.nextCursor, undefined);
    const everything = await Sandbox.list();
    assert.equal(everything.sandboxes.length, 3, "an unfiltered first page is capped too");
    assert.ok(everything.nextCursor);
  });

  it("stop keeps files and ends commands; start by name and by handle; remove", async () => {
    const sandbox = await Sandbox.builder("pausable").image("alpine").create();
    await sandbox.fs().write("/kept.txt", "kept");
    const sleeper = await sandbox.execStream("sh", ["-c", "sleep 30"]);
    await sandbox.stop();
    assert.deepEqual((await sleeper.wait()).code, 137, "stop kills running commands");
    const stopped = await Sandbox.get("pausable");
    assert.equal(stopped.status, "stopped");
    assert.equal(emulator.liveSandboxes()[0]?.state, "stopped");
    await assert.rejects(sandbox.fs().read("/kept.txt"), /409|not running|stopped/);

    const started = await Sandbox.start("pausable");
    assert.equal(await started.fs().readToString("/kept.txt"), "kept");
    await (await Sandbox.get("pausable")).stop();
    const again = await (await Sandbox.get("pausable")).start();
    assert.equal((await again.exec("cat", ["kept.txt"])).stdout(), "kept");
    assert.equal(emulator.countRequests("POST /v1/sandboxes/by-name/:name/start"), 1);
    assert.equal(emulator.countRequests("POST /v1/sandboxes/:id/start"), 1);
    assert.equal(emulator.countRequests("POST /v1/sandboxes/:id/stop"), 2);

    await again.stop();
    await Sandbox.remove("pausable");
    assert.deepEqual(emulator.liveSandboxes(), []);
    await assert.rejects(Sandbox.remove("pausable"), microsandbox.SandboxNotFoundError);
  });

  it("lifecycle policies: max duration and idle timeout stop a sandbox, an ephemeral one is removed when it stops", async () => {
    const capped = await Sandbox.builder("capped").image("alpine").maxDuration(1).create();
    const idle = await Sandbox.builder("idle").image("alpine").idleTimeout(1).create();
    const busy = await Sandbox.builder("busy").image("alpine").idleTimeout(1).create();
    const ephemeral = await Sandbox.builder("ephemeral").image("alpine").ephemeral(true).create();
    const working = busy.exec("sleep", ["1.6"]);
    await ephemeral.stop();
    await waitFor(() => emulator.liveSandboxes().length === 3, {
      intervalMs: 50,
      what: "the ephemeral sandbox to be gone once stopped",
    });
    await working;
    const states = Object.fromEntries(
      await Promise.all(
        ["capped", "idle", "busy"].map(async (name) => [name, (await Sandbox.get(name)).status] as const),
      ),
    );
    assert.deepEqual(states, { capped: "stopped", idle: "stopped", busy: "running" });
    await assert.rejects(capped.exec("true"), /409/);
    await assert.rejects(idle.exec("true"), /409/);
    await assert.rejects(
      Sandbox.builder("offline").image("alpine").disableNetwork().create(),
      microsandbox.InvalidConfigError,
      "the default backend (isolation none) cannot take the network away",
    );
  });

  it("exec: argv reaches the program unchanged, stdin is a pipe, timeout and kill end the command", async () => {
    const sandbox = await Sandbox.builder("exec").image("alpine").create();
    const argv = await sandbox.exec("printf", ["%s|", "a b", "$HOME", "*", ""]);
    assert.equal(argv.stdout(), "a b|$HOME|*||");

    const piped = await sandbox.execWith("cat", (options) => options.stdinBytes(Buffer.from([0x68, 0x69, 0x0a])));
    assert.equal(piped.stdout(), "hi\n");
    // As under agentd: the SDK sends no EOF for a command without stdin, so the pipe stays open.
    await assert.rejects(
      sandbox.execWith("cat", (options) => options.timeout(300)),
      microsandbox.ExecTimeoutError,
      "without an EOF a command reading stdin waits",
    );
    const interactive = await sandbox.execStreamWith("sh", (options) =>
      options.args(["-c", 'read line; echo "got $line"; cat']).stdinPipe(),
    );
    const sink = await interactive.takeStdin();
    await delay(200);
    await sink?.write("late\n");
    await sink?.write(Buffer.from([0, 255, 10]));
    await sink?.close();
    const conversation = await interactive.collect();
    assert.deepEqual(Buffer.from(conversation.stdoutBytes()), Buffer.from([...Buffer.from("got late\n"), 0, 255, 10]));

    const started = Date.now();
    await assert.rejects(
      sandbox.execWith("sh", (options) => options.args(["-c", "sleep 0.6; touch late.txt"]).timeout(200)),
      (error: unknown) => error instanceof microsandbox.ExecTimeoutError && error.timeoutMs === 200,
    );
    assert.ok(Date.now() - started < 2_000);
    await delay(800);
    assert.equal(await sandbox.fs().exists("/late.txt"), false, "the timed-out command was killed");

    const handle = await sandbox.execStream("sleep", ["30"]);
    await handle.kill();
    assert.deepEqual(await handle.wait(), { code: 137, success: false });
    const terminated = await sandbox.execStream("sleep", ["30"]);
    await terminated.signal(15);
    assert.equal((await terminated.wait()).code, 143);
    await sandbox.destroy();
  });

  it("execStream: started, then stdout and stderr chunks as bytes, then exited", async () => {
    const sandbox = await Sandbox.builder("stream").image("alpine").create();
    const handle = await sandbox.shellStream("echo one; sleep 0.2; echo two >&2; exit 4");
    const events: string[] = [];
    for await (const event of handle) {
      if (event.kind === "started") events.push(`started ${typeof event.pid}`);
      else if (event.kind === "exited") events.push(`exited ${event.code}`);
      else events.push(`${event.kind} ${Buffer.from(event.data).toString()}`);
    }
    assert.deepEqual(events, ["started number", "stdout one\n", "stderr two\n", "exited 4"]);
    const collected = await (await sandbox.shellStream("printf abc")).collect();
    assert.deepEqual([collected.code, collected.stdout()], [0, "abc"]);
    await sandbox.destroy();
  });

  it("output is the bytes the command wrote, binary included", async () => {
    const sandbox = await Sandbox.builder("bytes").image("alpine").create();
    const all = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
    await sandbox.fs().write("/all.bin", all);
    const streamed = await sandbox.execStream("cat", ["all.bin"]);
    const received: number[] = [];
    for await (const event of streamed) if (event.kind === "stdout") received.push(...event.data);
    assert.deepEqual(Buffer.from(received), all);
    const collected = await sandbox.execWith("sh", (options) => options.args(["-c", "cat all.bin >&2"]));
    assert.deepEqual(Buffer.from(collected.stderrBytes()), all);
    await sandbox.destroy();
  });

  it("on a backend without spawn, stdin is given up front and live stdin is refused and logged", async () => {
    const { LocalRuntime } = await import("@sandport/local");
    const root = await mkdtemp(join(tmpdir(), "msb-nospawn-"));
    const local = new LocalRuntime({ root, isolation: "none" });
    // The same runtime without `spawn` (its methods bound, since they use private fields).
    const withoutSpawn = new Proxy(local, {
      get: (target, key) => {
        if (key === "spawn") return undefined;
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const own = await startMicrosandboxEmulator({ backend: withoutSpawn });
    try {
      const sandbox = await onBackend(own.sdkBackend, emulator.sdkBackend, () =>
        Sandbox.builder("collected").image("alpine").create(),
      );
      const given = await sandbox.execWith("cat", (options) => options.stdinBytes(Buffer.from("up front")));
      assert.equal(given.stdout(), "up front");
      assert.equal((await sandbox.exec("cat")).stdout(), "", "no stdin within the grace: EOF");
      const late = await sandbox.execStreamWith("sh", (options) => options.args(["-c", "sleep 0.3; cat"]).stdinPipe());
      await delay(150);
      const sink = await late.takeStdin();
      await sink?.write("too late");
      assert.equal((await late.collect()).stdout(), "", "live stdin does not reach the command");
      assert.deepEqual(own.unknownRoutes, ["AGENT core.exec.stdin"]);
    } finally {
      await own.stop();
      await destroyEverySandbox(local);
      await rm(root, { recursive: true, force: true });
    }
  });

  it("filesystem: binary-safe large files, list, stat, exists, mkdir, copy, rename, remove, removeDir", async () => {
    const sandbox = await Sandbox.builder("files").image("alpine").create();
    const files = sandbox.fs();
    const big = Buffer.alloc(7 * 1024 * 1024 + 5);
    for (let index = 0; index < big.length; index++) big[index] = (index * 31) & 0xff;
    await files.mkdir("/data/nested");
    await files.write("/data/big.bin", big);
    assert.ok(Buffer.from(await files.read("/data/big.bin")).equals(big), "7 MiB round-trip (3 MiB chunks)");
    const checksum = await sandbox.exec("sh", ["-c", "wc -c < data/big.bin"]);
    assert.equal(checksum.stdout().trim(), String(big.length));

    await files.write("/data/nested/a.txt", "A");
    const listing = await files.list("/data");
    assert.deepEqual(
      listing.map((entry) => `${entry.kind} ${entry.path} ${entry.size}`),
      [`file /data/big.bin ${big.length}`, "directory /data/nested 4096"],
    );
    const info = await files.stat("/data/nested/a.txt");
    assert.deepEqual([info.kind, info.size, info.mode & 0o777, info.readonly], ["file", 1, 0o644, false]);
    assert.ok(info.modified instanceof Date);
    assert.equal(await files.exists("/data/nested/a.txt"), true);
    assert.equal(await files.exists("/data/nope"), false);

    await files.copy("/data/nested/a.txt", "/data/copy.txt");
    await files.rename("/data/copy.txt", "/data/moved.txt");
    assert.equal(await files.readToString("/data/moved.txt"), "A");
    assert.equal(await files.exists("/data/copy.txt"), false);
    await files.remove("/data/moved.txt");
    assert.equal(await files.exists("/data/moved.txt"), false);

    await assert.rejects(files.remove("/data/nested"), /remove: Is a directory/);
    await assert.rejects(files.read("/missing.txt"), microsandbox.SandboxFsOpsError);
    await assert.rejects(files.write("/no/such/dir/x.txt", "x"), /No such file or directory/);
    await assert.rejects(files.list("/data/big.bin"), /Not a directory/);
    await files.removeDir("/data");
    assert.equal(await files.exists("/data/big.bin"), false);
    await sandbox.destroy();
  });

  it("credentials: a wrong API key is refused with 401 on the REST routes and the agent route", async () => {
    const wrong = { kind: "cloud" as const, url: emulator.apiUrl, apiKey: "msb_test_wrong" };
    await assert.rejects(
      onBackend(wrong, emulator.sdkBackend, () => Sandbox.builder("refused").image("alpine").create()),
      (error: unknown) => error instanceof microsandbox.CloudHttpError && /401/.test(error.message),
    );
    assert.deepEqual(emulator.liveSandboxes(), []);
    const sandbox = await Sandbox.builder("guarded").image("alpine").create();
    await assert.rejects(
      onBackend(wrong, emulator.sdkBackend, () => Sandbox.get("guarded")),
      /401/,
    );

    const agentUrl = `${emulator.apiUrl.replace("http", "ws")}/v1/sandboxes/${emulator.liveSandboxes()[0]?.id}/agent`;
    const handshake = (authorization: string) =>
      new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(agentUrl, { headers: { authorization } });
        socket.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
        socket.on("open", () => {
          socket.terminate();
          resolve(101);
        });
        socket.on("error", reject);
      });
    assert.equal(await handshake("Bearer msb_test_wrong"), 401);
    assert.equal(await handshake(`Bearer ${emulator.apiKey}`), 101);
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [
        "POST /v1/sandboxes 401",
        "POST /v1/sandboxes 200",
        "GET /v1/sandboxes/by-name/:name 401",
        "GET /v1/sandboxes/:id/agent 401",
        "GET /v1/sandboxes/:id/agent 101",
      ],
    );
    await sandbox.destroy();
  });

  it("names are unique: a second create is SandboxAlreadyExistsError; connectOrCreate attaches", async () => {
    await Sandbox.builder("unique").image("alpine").env("ORIGINAL", "yes").create();
    await assert.rejects(Sandbox.builder("unique").image("alpine").create(), microsandbox.SandboxAlreadyExistsError);
    emulator.resetRequests();
    const attached = await Sandbox.builder("unique").image("alpine").connectOrCreate();
    assert.deepEqual(
      emulator.requests.map((request) => request.route),
      ["GET /v1/sandboxes/by-name/:name", "GET /v1/sandboxes/by-name/:name"],
    );
    assert.equal((await attached.shell("echo $ORIGINAL")).stdout(), "yes\n", "the create-time env still applies");
    assert.equal(emulator.liveSandboxes().length, 1);
  });

  it("what is not emulated is refused and logged, never answered with success", async () => {
    const sandbox = await Sandbox.builder("limits").image("alpine").create();
    emulator.resetRequests();
    await assert.rejects(
      sandbox.execWith("true", (options) => options.tty(true)),
      /PTY sessions are not emulated/,
    );
    await assert.rejects(sandbox.logStream({ follow: true }), /501/);
    await assert.rejects(Sandbox.builder("mounted").image("alpine").rlimit("nofile", 64).create(), /not emulated/);
    const raw = await fetch(`${emulator.apiUrl}/v1/volumes`, {
      headers: { authorization: `Bearer ${emulator.apiKey}` },
    });
    assert.equal(raw.status, 501);
    assert.deepEqual(emulator.unknownRoutes, [
      "AGENT core.exec.request tty",
      `GET /v1/sandboxes/${emulator.liveSandboxes()[0]?.id}/logs?sources=stdout,stderr,output`,
      "POST /v1/sandboxes rlimits",
      "GET /v1/volumes",
    ]);
  });

  it("stop() removes every sandbox, kills its commands and closes the port", async () => {
    const own = await startMicrosandboxEmulator();
    const sandbox = await onBackend(own.sdkBackend, emulator.sdkBackend, () =>
      Sandbox.builder("doomed").image("alpine").create(),
    );
    const running = await sandbox.execStream("sleep", ["30"]);
    await own.seedForeignSandbox();
    assert.equal(own.liveSandboxes().length, 2);
    await own.stop();
    assert.deepEqual(own.liveSandboxes(), []);
    await assert.rejects(running.wait());
    await assert.rejects(fetch(`${own.url}/v1/sandboxes`));
    await own.stop();
  });
});
