// Wire tests: the real e2b SDK (2.51) against the E2B emulator, which runs
// every sandbox for real on its backend runtime.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import * as e2b from "e2b";

type SandboxOpts = e2b.SandboxOpts;

import { type E2BEmulator, startE2BEmulator } from "./emulator.js";

const { Sandbox } = e2b;

describe("E2B emulator with the real e2b SDK", () => {
  let emulator: E2BEmulator;

  before(async () => {
    emulator = await startE2BEmulator();
  });

  after(() => emulator.stop());

  // A failed test must not leave sandboxes behind for the next one's assertions.
  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) await Sandbox.kill(id, emulator.sdkOptions).catch(() => false);
  });

  const create = (extra: SandboxOpts = {}) => Sandbox.create({ ...emulator.sdkOptions, timeoutMs: 60_000, ...extra });

  it("create → write → run → background + connect → read bytes → kill, with exact request counts", async () => {
    emulator.resetRequests();
    const sandbox = await create({ metadata: { owner: "me", run: "lifecycle" }, envs: { GREETING: "hi" } });
    assert.match(sandbox.sandboxId, /^i[a-z0-9]{19}$/);
    assert.deepEqual(
      emulator.liveSandboxes().find((entry) => entry.id === sandbox.sandboxId),
      { id: sandbox.sandboxId, metadata: { owner: "me", run: "lifecycle" }, foreign: false, state: "running" },
    );

    const single = await sandbox.files.write("work/one.txt", "one\n");
    assert.deepEqual([single.name, single.type, single.path], ["one.txt", "file", "/home/user/work/one.txt"]);
    const batch = await sandbox.files.write([
      { path: "work/src/a.txt", data: "A" },
      { path: "/home/user/work/src/b.txt", data: "B" },
    ]);
    assert.deepEqual(
      batch.map((entry) => entry.path),
      ["/home/user/work/src/a.txt", "/home/user/work/src/b.txt"],
    );

    const result = await sandbox.commands.run(
      'cat one.txt src/a.txt src/b.txt; echo " $GREETING $EXTRA"; echo oops >&2',
      {
        cwd: "/home/user/work",
        envs: { EXTRA: "there" },
        timeoutMs: 10_000,
      },
    );
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout, "one\nAB hi there\n");
    assert.equal(result.stderr, "oops\n");

    const failure = await sandbox.commands.run("echo partial; echo bad >&2; exit 7", { timeoutMs: 10_000 }).then(
      () => assert.fail("a non-zero exit must throw"),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof e2b.CommandExitError);
    assert.equal(failure.exitCode, 7);
    assert.equal(failure.stdout, "partial\n");
    assert.equal(failure.stderr, "bad\n");

    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    await sandbox.files.write("bin/all.bin", bytes.buffer);
    const read = await sandbox.files.read("/home/user/bin/all.bin", { format: "bytes" });
    assert.deepEqual(Buffer.from(read), Buffer.from(bytes));

    const background = await sandbox.commands.run("sleep 0.3; echo from background", {
      background: true,
      timeoutMs: 10_000,
    });
    const attached = await sandbox.commands.connect(background.pid, { timeoutMs: 10_000 });
    const attachedResult = await attached.wait();
    assert.equal(attachedResult.stdout, "from background\n");
    assert.equal((await background.wait()).exitCode, 0);

    assert.equal(await sandbox.kill(), true);
    assert.equal(
      emulator.liveSandboxes().some((entry) => entry.id === sandbox.sandboxId),
      false,
    );

    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [
        "POST /v2/sandboxes 201",
        "POST /files 200",
        "POST /files 200",
        "rpc process.Process/Start 200",
        "rpc process.Process/Start 200",
        "POST /files 200",
        "GET /files 200",
        "rpc process.Process/Start 200",
        "rpc process.Process/Connect 200",
        "DELETE /sandboxes/:id 204",
      ],
    );
    assert.equal(emulator.countRequests(), 10);
    assert.equal(emulator.countRequests("rpc process.Process/Start"), 3);
    assert.equal(emulator.countRequests(/^(GET|POST) \/files$/), 4);
    for (const request of emulator.requests) {
      if (request.route.startsWith("rpc ") || request.route.endsWith(" /files")) {
        assert.equal(request.headers["e2b-sandbox-id"], sandbox.sandboxId);
        assert.ok(request.headers["x-access-token"], "envd requests carry the access token");
        assert.equal(request.headers["x-api-key"], undefined, "the API key never goes to envd");
      } else {
        assert.equal(request.headers["x-api-key"], emulator.apiKey);
      }
    }
    assert.deepEqual(emulator.unknownRoutes, []);
  });

  it("lists by metadata across pages (x-next-token), foreign sandboxes included as the provider would", async () => {
    const metadata = { suite: "list", "team/name": "a b&c=d" };
    const ours = await Promise.all([1, 2, 3, 4].map(() => create({ metadata })));
    const other = await create({ metadata: { suite: "other" } });
    const foreignId = await emulator.seedForeignSandbox({ ...metadata, owner: "someone-else" });
    emulator.resetRequests();

    const paginator = Sandbox.list({ ...emulator.sdkOptions, query: { metadata } });
    const seen: string[] = [];
    let pages = 0;
    while (paginator.hasNext) {
      const items = await paginator.nextItems();
      pages += 1;
      assert.ok(items.length <= 3, "the emulator's page size is 3");
      seen.push(...items.map((item) => item.sandboxId));
    }
    assert.equal(pages, 2);
    assert.deepEqual(seen.sort(), [...ours.map((sandbox) => sandbox.sandboxId), foreignId].sort());
    assert.equal(emulator.countRequests("GET /v2/sandboxes"), 2);
    assert.ok(emulator.requests[1]?.path.includes("nextToken="));

    const limited = Sandbox.list({ ...emulator.sdkOptions, query: { metadata: { suite: "other" } }, limit: 1 });
    assert.deepEqual(
      (await limited.nextItems()).map((item) => item.sandboxId),
      [other.sandboxId],
    );
    assert.equal(limited.hasNext, false);

    assert.equal(emulator.liveSandboxes().find((entry) => entry.id === foreignId)?.foreign, true);
    for (const sandbox of [...ours, other])
      assert.equal(await Sandbox.kill(sandbox.sandboxId, emulator.sdkOptions), true);
    assert.equal(await Sandbox.kill(foreignId, emulator.sdkOptions), true);
    assert.equal(await Sandbox.kill(foreignId, emulator.sdkOptions), false, "DELETE of an absent sandbox is 404");
    assert.deepEqual(emulator.liveSandboxes(), []);
  });

  it("credentials go where configured: a wrong API key and a wrong envd token are refused with 401", async () => {
    emulator.resetRequests();
    await assert.rejects(Sandbox.create({ ...emulator.sdkOptions, apiKey: "e2b_wrong" }), e2b.AuthenticationError);
    assert.equal(emulator.requests[0]?.status, 401);
    assert.deepEqual(emulator.liveSandboxes(), []);

    const sandbox = await create();
    const envd = (path: string, accessToken: string, init: RequestInit = {}) =>
      fetch(`${emulator.sandboxUrl}${path}`, {
        ...init,
        headers: { "E2b-Sandbox-Id": sandbox.sandboxId, "X-Access-Token": accessToken, ...init.headers },
      });
    const wrongFile = await envd("/files?path=x.txt", "wrong");
    assert.equal(wrongFile.status, 401);
    const wrongRpc = await envd("/process.Process/List", "wrong", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(wrongRpc.status, 401);
    assert.equal(((await wrongRpc.json()) as { code: string }).code, "unauthenticated");
    const detail = (await (
      await fetch(`${emulator.apiUrl}/sandboxes/${sandbox.sandboxId}`, { headers: { "X-API-KEY": emulator.apiKey } })
    ).json()) as { envdAccessToken: string };
    const rightFile = await envd("/files?path=x.txt", detail.envdAccessToken);
    assert.equal(rightFile.status, 404, "with the right token the request reaches the (absent) file");
    await sandbox.kill();
  });

  it("unknown routes are answered 404 / unimplemented and logged, never 200", async () => {
    const sandbox = await create();
    emulator.resetRequests();
    await assert.rejects(sandbox.getMetrics(), e2b.SandboxNotFoundError);
    await assert.rejects(sandbox.files.watchDir("/home/user", () => {}));
    const raw = await fetch(`${emulator.url}/v9/nothing`, { headers: { "X-API-KEY": emulator.apiKey } });
    assert.equal(raw.status, 404);
    assert.deepEqual(emulator.unknownRoutes, [
      `GET /sandboxes/${sandbox.sandboxId}/metrics`,
      "POST /filesystem.Filesystem/WatchDir",
      "GET /v9/nothing",
    ]);
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [
        `GET /sandboxes/${sandbox.sandboxId}/metrics 404`,
        "rpc filesystem.Filesystem/WatchDir 404",
        "GET /v9/nothing 404",
      ],
    );
    await sandbox.kill();
  });

  it("serves the deprecated v1 create and list routes with their own defaults", async () => {
    const headers = { "X-API-KEY": emulator.apiKey, "content-type": "application/json" };
    const created = await fetch(`${emulator.apiUrl}/sandboxes`, {
      method: "POST",
      headers,
      body: JSON.stringify({ templateID: "base", metadata: { api: "v1" } }),
    });
    assert.equal(created.status, 201);
    const { sandboxID } = (await created.json()) as { sandboxID: string };
    const info = await Sandbox.getInfo(sandboxID, emulator.sdkOptions);
    const lifetime = info.endAt.getTime() - info.startedAt.getTime();
    assert.equal(lifetime, 15_000, "v1 create defaults to 15 s");
    const listed = await fetch(`${emulator.apiUrl}/sandboxes?metadata=${encodeURIComponent("api=v1")}`, { headers });
    assert.deepEqual(
      ((await listed.json()) as { sandboxID: string }[]).map((entry) => entry.sandboxID),
      [sandboxID],
    );
    const refused = await fetch(`${emulator.apiUrl}/v2/sandboxes`, {
      method: "POST",
      headers,
      body: JSON.stringify({ templateID: "base", timeout: 90_000 }),
    });
    assert.equal(refused.status, 400, "more than 24 h is refused");
    const missing = await fetch(`${emulator.apiUrl}/v2/sandboxes`, { method: "POST", headers, body: "{}" });
    assert.equal(missing.status, 400, "templateID is required");
  });

  it("filesystem: makeDir, getInfo, rename, list with depth, remove, and escapes refused", async () => {
    const sandbox = await create();
    assert.equal(await sandbox.files.makeDir("d/e"), true);
    assert.equal(await sandbox.files.makeDir("/home/user/d/e"), false, "an existing directory");
    await sandbox.files.write("d/file.txt", "x");
    await assert.rejects(
      sandbox.files.makeDir("d/file.txt"),
      (error) =>
        error instanceof e2b.InvalidArgumentError && /already exists but it is not a directory/.test(error.message),
      "an existing file is not an existing directory",
    );
    await sandbox.files.remove("d/file.txt");
    const info = await sandbox.files.getInfo("d/e");
    assert.equal(info.type, "dir");
    assert.equal(info.path, "/home/user/d/e");
    await sandbox.files.write("d/e/f.txt", "content");
    const moved = await sandbox.files.rename("d/e/f.txt", "/home/user/g/h.txt");
    assert.equal(moved.path, "/home/user/g/h.txt");
    assert.equal(await sandbox.files.exists("d/e/f.txt"), false);
    assert.equal(await sandbox.files.read("g/h.txt"), "content");
    const entries = (await sandbox.files.list("/home/user", { depth: 2 })).filter(
      (entry) => !entry.name.startsWith("."),
    );
    assert.deepEqual(
      entries.map((entry) => `${entry.type} ${entry.path}`),
      ["dir /home/user/d", "dir /home/user/d/e", "dir /home/user/g", "file /home/user/g/h.txt"],
    );
    const file = entries.find((entry) => entry.name === "h.txt");
    assert.equal(file?.size, 7);
    assert.ok(file?.modifiedTime instanceof Date);
    await sandbox.files.remove("g");
    assert.equal(await sandbox.files.exists("g/h.txt"), false);
    await assert.rejects(sandbox.files.read("missing.txt"), e2b.FileNotFoundError);
    await assert.rejects(sandbox.files.getInfo("missing"), e2b.FileNotFoundError);
    await assert.rejects(sandbox.files.read("/etc/hostname"), e2b.InvalidArgumentError);
    await assert.rejects(sandbox.files.write("../escape.txt", "x"), e2b.InvalidArgumentError);
    await assert.rejects(sandbox.files.list("/tmp"), e2b.InvalidArgumentError);
    await sandbox.kill();
  });

  it("uploads as octet-stream and gzip where the envd version allows", async () => {
    const sandbox = await create();
    emulator.resetRequests();
    await sandbox.files.write("o.txt", "octet", { useOctetStream: true });
    await sandbox.files.write("z.txt", "zipped", { gzip: true });
    assert.equal(await sandbox.files.read("o.txt"), "octet");
    assert.equal(await sandbox.files.read("z.txt"), "zipped");
    assert.equal(emulator.requests[0]?.headers["content-type"], "application/octet-stream");
    assert.equal(emulator.requests[1]?.headers["content-encoding"], "gzip");
    await sandbox.kill();
  });

  it("processes: stdin through SendInput/CloseStdin, List, SendSignal", async () => {
    const sandbox = await create();
    await sandbox.files.makeDir("sub");
    const cat = await sandbox.commands.run('cat; basename "$PWD"', {
      stdin: true,
      background: true,
      cwd: "/home/user/sub",
      timeoutMs: 20_000,
    });
    await sandbox.commands.sendStdin(cat.pid, "line one\n");
    await cat.sendStdin("line two\n");
    const home = await sandbox.files.list("/home/user");
    assert.deepEqual(
      home.filter((entry) => entry.name.startsWith(".e2b-emulator")),
      [],
      "the emulator's stdin pipe is not listed",
    );
    await cat.closeStdin();
    const catResult = await cat.wait();
    assert.equal(catResult.stdout, "line one\nline two\nsub\n");

    const sleeper = await sandbox.commands.run("sleep 30", { background: true, timeoutMs: 60_000 });
    const listed = await sandbox.commands.list();
    assert.deepEqual(
      listed.map((process) => [process.pid, process.cmd, process.args]),
      [[sleeper.pid, "/bin/bash", ["-l", "-c", "sleep 30"]]],
    );
    await assert.rejects(sandbox.commands.sendStdin(sleeper.pid, "x"), e2b.SandboxError);
    assert.equal(await sandbox.commands.kill(sleeper.pid), true);
    const killed = await sleeper.wait().then(
      () => assert.fail("a killed command must throw"),
      (error: unknown) => error,
    );
    assert.ok(killed instanceof e2b.CommandExitError);
    assert.equal(killed.exitCode, -1);
    assert.deepEqual(await sandbox.commands.list(), []);
    assert.equal(await sandbox.commands.kill(sleeper.pid), false, "an ended process is not found");
    await sandbox.kill();
  });

  it("pause, then connect resumes with files kept; setTimeout and getInfo report lifetimes", async () => {
    const sandbox = await create({ metadata: { run: "pause" } });
    await sandbox.files.write("kept.txt", "kept");
    assert.equal(await sandbox.pause(), true);
    assert.equal(await sandbox.pause(), false, "already paused");
    assert.equal(emulator.liveSandboxes().find((entry) => entry.id === sandbox.sandboxId)?.state, "paused");
    assert.equal((await sandbox.getInfo()).state, "paused");
    await assert.rejects(sandbox.files.read("kept.txt"));

    const resumed = await Sandbox.connect(sandbox.sandboxId, { ...emulator.sdkOptions, timeoutMs: 30_000 });
    assert.equal(await resumed.files.read("kept.txt"), "kept");
    assert.equal((await resumed.getInfo()).state, "running");

    await resumed.setTimeout(600_000);
    const info = await resumed.getInfo();
    assert.ok(Math.abs(info.endAt.getTime() - (Date.now() + 600_000)) < 5_000);
    assert.deepEqual(info.metadata, { run: "pause" });
    await resumed.kill();
    await assert.rejects(Sandbox.getInfo(sandbox.sandboxId, emulator.sdkOptions), e2b.SandboxNotFoundError);
    await assert.rejects(Sandbox.connect(sandbox.sandboxId, emulator.sdkOptions), e2b.SandboxNotFoundError);
  });

  it("stop() kills every sandbox and process and closes the port", async () => {
    const own = await startE2BEmulator();
    const sandbox = await Sandbox.create({ ...own.sdkOptions, timeoutMs: 60_000 });
    await sandbox.commands.run("sleep 30", { background: true, timeoutMs: 60_000 });
    await own.seedForeignSandbox();
    assert.equal(own.liveSandboxes().length, 2);
    await own.stop();
    assert.deepEqual(own.liveSandboxes(), []);
    await assert.rejects(fetch(`${own.url}/v2/sandboxes`));
    await own.stop();
  });
});
