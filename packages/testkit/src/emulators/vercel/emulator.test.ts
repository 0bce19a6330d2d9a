// Wire tests: the real @vercel/sandbox SDK (3.5.0) against the Vercel
// emulator, which runs every sandbox for real on its backend runtime.

import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, afterEach, before, describe, it } from "node:test";
import { APIError, Sandbox } from "@vercel/sandbox";
import { startVercelEmulator, type VercelEmulator } from "./emulator.js";
import { INTERACTIVE_ROUTE } from "./interactive.js";

type CreateParams = NonNullable<Parameters<typeof Sandbox.create>[0]>;

/** The APIError a call rejects with (fails the test when it resolves or throws something else). */
async function apiError(promise: Promise<unknown>): Promise<APIError<{ error?: Record<string, unknown> }>> {
  const error = await promise.then(
    () => assert.fail("the call must fail"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof APIError, `expected an APIError, got ${String(error)}`);
  return error as APIError<{ error?: Record<string, unknown> }>;
}

describe("Vercel emulator with the real @vercel/sandbox SDK", () => {
  let emulator: VercelEmulator;

  before(async () => {
    emulator = await startVercelEmulator();
  });

  after(() => emulator.stop());

  // A failed test must not leave sandboxes behind for the next one's assertions.
  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) {
      await Sandbox.get({ ...emulator.sdkOptions, name: id })
        .then((sandbox) => sandbox.delete())
        .catch(() => undefined);
    }
  });

  const create = (extra: Partial<CreateParams> = {}) =>
    Sandbox.create({ ...emulator.sdkOptions, timeout: 60_000, ...extra } as CreateParams);

  it("create → batch write → run with cwd and env → read bytes → delete, with exact requests and credentials", async () => {
    emulator.resetRequests();
    const sandbox = await create({
      name: "lifecycle",
      env: { GREETING: "hi" },
      tags: { owner: "me", run: "lifecycle" },
      resources: { vcpus: 1 },
      ports: [3000],
    });
    assert.equal(sandbox.name, "lifecycle");
    assert.equal(sandbox.status, "running");
    assert.equal(sandbox.cwd, "/vercel/sandbox");
    assert.equal(sandbox.persistent, true, "persistence is the default");
    assert.deepEqual(sandbox.tags, { owner: "me", run: "lifecycle" });
    assert.equal(sandbox.vcpus, 1);
    assert.equal(sandbox.memory, 2048);
    assert.deepEqual(emulator.liveSandboxes(), [
      { id: "lifecycle", metadata: { owner: "me", run: "lifecycle" }, foreign: false, state: "running" },
    ]);
    assert.match(sandbox.domain(3000), /^https:\/\/sb-[a-z0-9]+-3000\.vercel\.run$/, "a declared port has a route");
    assert.throws(() => sandbox.domain(3001), /No route for port 3001/, "an undeclared port has none");

    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    await sandbox.writeFiles([
      { path: "work/one.txt", content: "one\n" },
      { path: "/vercel/sandbox/work/src/two.txt", content: Buffer.from("two\n") },
      { path: "bin/all.bin", content: bytes },
      { path: "bin/run.sh", content: '#!/bin/sh\necho "ran with $1"\n', mode: 0o755 },
    ]);

    const result = await sandbox.runCommand({
      cmd: "sh",
      args: ["-c", 'cat one.txt src/two.txt; echo "$GREETING $EXTRA"; echo oops >&2; exit 3'],
      cwd: "/vercel/sandbox/work",
      env: { EXTRA: "there" },
    });
    assert.equal(result.exitCode, 3);
    assert.equal(await result.stdout(), "one\ntwo\nhi there\n");
    assert.equal(await result.stderr(), "oops\n");
    assert.equal(result.cwd, "/vercel/sandbox/work");

    const script = await sandbox.runCommand("bin/run.sh", ["arg"]);
    assert.equal(await script.stdout(), "ran with arg\n", "the tar's mode made the script executable");
    const bytesBack = await sandbox.readFileToBuffer({ path: "/vercel/sandbox/bin/all.bin" });
    assert.deepEqual(bytesBack, Buffer.from(bytes));
    const relative = await sandbox.readFileToBuffer({ path: "one.txt", cwd: "/vercel/sandbox/work" });
    assert.equal(relative?.toString(), "one\n");
    assert.equal(await sandbox.readFileToBuffer({ path: "missing.txt" }), null);

    await sandbox.delete();
    assert.deepEqual(emulator.liveSandboxes(), []);
    const gone = await apiError(Sandbox.get({ ...emulator.sdkOptions, name: "lifecycle" }));
    assert.equal(gone.response.status, 404);
    assert.equal(gone.json?.error?.code, "not_found");

    assert.deepEqual(
      emulator.requests.map((request) => `${request.method} ${request.route} ${request.status}`),
      [
        "POST POST /v3/sandboxes 200",
        "POST POST /v2/sandboxes/sessions/:sessionId/fs/write 200",
        "POST POST /v2/sandboxes/sessions/:sessionId/cmd 200",
        "POST POST /v2/sandboxes/sessions/:sessionId/cmd 200",
        "POST POST /v2/sandboxes/sessions/:sessionId/fs/read 200",
        "POST POST /v2/sandboxes/sessions/:sessionId/fs/read 200",
        "POST POST /v2/sandboxes/sessions/:sessionId/fs/read 404",
        "DELETE DELETE /v2/sandboxes/:name 200",
        "GET GET /v2/sandboxes/:name 404",
      ],
    );
    for (const request of emulator.requests) {
      assert.equal(request.headers.authorization, `Bearer ${emulator.credentials.token}`);
      assert.ok(request.path.includes(`teamId=${emulator.credentials.teamId}`), request.path);
      assert.match(request.headers["user-agent"] ?? "", /^vercel\/sandbox\/3\.5\.0 /);
      if (request.route.includes(":name")) {
        assert.ok(request.path.includes(`projectId=${emulator.credentials.projectId}`), request.path);
      }
    }
    assert.equal(emulator.requests[1]?.headers["content-type"], "application/gzip");
    assert.equal(emulator.requests[1]?.headers["x-cwd"], "/");
    assert.deepEqual(emulator.unknownRoutes, []);
  });

  it("argv reaches the program unchanged; whole /vercel/sandbox arguments map; fs helpers; mkDir; timeouts", async () => {
    const sandbox = await create();
    const argv = await sandbox.runCommand("printf", ["%s|", "a b", "$HOME", "'q'", ""]);
    assert.equal(await argv.stdout(), "a b|$HOME|'q'||");

    await sandbox.fs.mkdir("/vercel/sandbox/d/e", { recursive: true });
    await sandbox.fs.writeFile("/vercel/sandbox/d/e/f.txt", "content");
    assert.deepEqual(await sandbox.fs.readdir("/vercel/sandbox/d/e"), ["f.txt"]);
    const entries = await sandbox.fs.readdir("/vercel/sandbox/d", { withFileTypes: true });
    assert.deepEqual(
      entries.map((entry) => [entry.name, entry.isDirectory()]),
      [["e", true]],
    );
    const stat = await sandbox.fs.stat("/vercel/sandbox/d/e/f.txt");
    assert.equal(stat.isFile(), true);
    assert.equal(stat.size, 7);
    assert.equal(await sandbox.fs.exists("d/e/f.txt"), true);
    await sandbox.fs.rm("/vercel/sandbox/d", { recursive: true });
    assert.equal(await sandbox.fs.exists("/vercel/sandbox/d"), false);
    await assert.rejects(sandbox.fs.stat("/vercel/sandbox/missing"), { code: "ENOENT" });

    const deep = `${"d".repeat(120)}/${"e".repeat(120)}/ünïcode ${"f".repeat(80)}.txt`;
    await sandbox.writeFiles([{ path: deep, content: "deep\n" }]);
    assert.equal(await (await sandbox.runCommand("cat", [`/vercel/sandbox/${deep}`])).stdout(), "deep\n");

    await sandbox.mkDir("made");
    assert.equal((await sandbox.fs.stat("made")).isDirectory(), true);
    assert.equal((await apiError(sandbox.mkDir("made"))).response.status, 400, "mkDir of an existing directory");
    assert.equal((await apiError(sandbox.mkDir("no/parent"))).response.status, 400, "mkDir is not recursive");

    for (const refused of [
      () => sandbox.readFileToBuffer({ path: "/etc/hostname" }),
      () => sandbox.writeFiles([{ path: "/tmp/escape.txt", content: "x" }]),
      () => sandbox.writeFiles([{ path: "../escape.txt", content: "x" }]),
      () => sandbox.runCommand({ cmd: "true", cwd: "/tmp/absent" }),
      () => sandbox.runCommand({ cmd: "true", cwd: "/tmp/../etc" }),
      () => sandbox.runCommand({ cmd: "true", cwd: "/vercel/sandbox/absent" }),
      () => sandbox.runCommand({ cmd: "id", sudo: true }),
    ]) {
      const error = await apiError(refused());
      assert.equal(error.response.status, 400, error.message);
      assert.equal(error.json?.error?.code, "bad_request");
    }

    // A command runs anywhere in the VM: a cwd outside /vercel/sandbox is a directory like any other.
    assert.equal(await (await sandbox.runCommand({ cmd: "pwd", cwd: "/tmp" })).stdout(), "/tmp\n");

    const started = Date.now();
    const slow = await sandbox.runCommand("sleep", ["20"], { timeoutMs: 300 });
    assert.equal(slow.exitCode, 137, "a command past its timeout is killed with SIGKILL");
    assert.ok(Date.now() - started < 5_000);
  });

  it("detached commands: logs stream as produced and replay; wait, getCommand, kill, piped stdout", async () => {
    const sandbox = await create();
    const command = await sandbox.runCommand({
      cmd: "sh",
      args: ["-c", "echo one; sleep 0.4; echo two >&2; sleep 0.4; echo three; exit 5"],
      detached: true,
    });
    assert.equal(command.exitCode, null);
    const arrivals: { line: string; at: number }[] = [];
    for await (const log of command.logs()) arrivals.push({ line: `${log.stream}:${log.data}`, at: Date.now() });
    assert.deepEqual(
      arrivals.map((arrival) => arrival.line),
      ["stdout:one\n", "stderr:two\n", "stdout:three\n"],
    );
    assert.ok(arrivals[2]!.at - arrivals[0]!.at >= 600, "lines arrive as the command prints them");
    const finished = await command.wait();
    assert.equal(finished.exitCode, 5);
    assert.equal(await command.output("both"), "one\ntwo\nthree\n");
    const fetched = await sandbox.getCommand(command.cmdId);
    assert.equal(fetched.exitCode, 5);
    assert.equal(await fetched.stderr(), "two\n", "logs of an ended command replay from the first line");

    const sleeper = await sandbox.runCommand({ cmd: "sleep", args: ["30"], detached: true });
    const refusedSignal = await apiError(sleeper.kill("SIGSTOP"));
    assert.equal(refusedSignal.response.status, 400);
    await sleeper.kill("SIGTERM");
    assert.equal((await sleeper.wait()).exitCode, 143);
    assert.equal((await apiError(sandbox.getCommand("cmd_unknown"))).response.status, 404);

    let piped = "";
    const sink = new Writable({
      write(chunk, _encoding, done) {
        piped += String(chunk);
        done();
      },
    });
    const waited = await sandbox.runCommand({ cmd: "sh", args: ["-c", "echo piped; echo also"], stdout: sink });
    assert.equal(piped, "piped\nalso\n");
    assert.equal(waited.exitCode, 0);
  });

  it("lists by one tag and by name prefix across cursor pages; foreign sandboxes are listed as the API would", async () => {
    for (const index of [1, 2, 3, 4]) await create({ name: `list-a-${index}`, tags: { suite: "list" } });
    await create({ name: "list-b-1", tags: { suite: "other" } });
    const foreign = await emulator.seedForeignSandbox({ suite: "list", owner: "someone-else" });
    emulator.resetRequests();

    const tagged = await Sandbox.list({ ...emulator.sdkOptions, tags: { suite: "list" } });
    assert.equal(tagged.sandboxes.length, 3, "the emulator's page size is 3");
    assert.equal(typeof tagged.pagination.next, "string");
    const all = await tagged.toArray();
    assert.deepEqual(all.map((entry) => entry.name).sort(), [foreign, "list-a-1", "list-a-2", "list-a-3", "list-a-4"]);
    assert.equal(emulator.countRequests("GET /v2/sandboxes"), 2);
    assert.ok(emulator.requests[0]?.path.includes("tags=suite%3Alist"), emulator.requests[0]?.path);
    assert.ok(emulator.requests[1]?.path.includes("cursor="), emulator.requests[1]?.path);
    assert.ok(emulator.requests.every((request) => request.path.includes(`project=${emulator.credentials.projectId}`)));

    const prefixed = await Sandbox.list({ ...emulator.sdkOptions, namePrefix: "list-a-", sortBy: "name" });
    assert.deepEqual(
      (await prefixed.toArray()).map((entry) => entry.name),
      ["list-a-4", "list-a-3", "list-a-2", "list-a-1"],
      "sorted by name, descending by default",
    );
    const ascending = await Sandbox.list({
      ...emulator.sdkOptions,
      namePrefix: "list-",
      sortBy: "name",
      sortOrder: "asc",
      limit: 2,
    });
    assert.deepEqual(
      ascending.sandboxes.map((entry) => entry.name),
      ["list-a-1", "list-a-2"],
    );
    const pages: string[][] = [];
    for await (const page of ascending.pages()) pages.push(page.sandboxes.map((entry) => entry.name));
    assert.deepEqual(pages, [["list-a-1", "list-a-2"], ["list-a-3", "list-a-4"], ["list-b-1"]]);
    assert.deepEqual((await Sandbox.list({ ...emulator.sdkOptions, tags: { suite: "none" } })).sandboxes, []);
    assert.equal(emulator.liveSandboxes().find((entry) => entry.id === foreign)?.foreign, true);

    const twoTags = await emulator.fetch(
      `${emulator.baseUrl}/v2/sandboxes?teamId=${emulator.credentials.teamId}&project=${emulator.credentials.projectId}&tags=a:1&tags=b:2`,
      { headers: { authorization: `Bearer ${emulator.credentials.token}` } },
    );
    assert.equal(twoTags.status, 400, "one tag filter at most");
  });

  it("refuses wrong credentials the way the API does, and its fetch refuses every other host", async () => {
    emulator.resetRequests();
    const wrongToken = await apiError(create({ token: "vcp_wrong" }));
    assert.equal(wrongToken.response.status, 403);
    assert.deepEqual(wrongToken.json?.error, { code: "forbidden", message: "Not authorized", invalidToken: true });
    const wrongTeam = await apiError(create({ teamId: "team_other" }));
    assert.equal(wrongTeam.response.status, 403);
    const wrongProject = await apiError(create({ projectId: "prj_other" }));
    assert.equal(wrongProject.response.status, 404);
    assert.deepEqual(emulator.liveSandboxes(), []);

    const sandbox = await create({ name: "guarded" });
    assert.equal(
      (await apiError(Sandbox.get({ ...emulator.sdkOptions, name: "guarded", token: "x" }))).response.status,
      403,
    );
    assert.equal(
      (await apiError(Sandbox.get({ ...emulator.sdkOptions, name: "guarded", projectId: "prj_other" }))).response
        .status,
      404,
    );
    const session = sandbox.currentSession().sessionId;
    const sessionUrl = `${emulator.baseUrl}/v2/sandboxes/sessions/${session}/cmd?teamId=${emulator.credentials.teamId}`;
    const unauthenticated = await emulator.fetch(sessionUrl, { method: "POST", body: '{"command":"true"}' });
    assert.equal(unauthenticated.status, 403);
    assert.equal(((await unauthenticated.json()) as { error: { missingToken: boolean } }).error.missingToken, true);
    const forged = await emulator.fetch(sessionUrl, {
      method: "POST",
      headers: { authorization: "Bearer vcp_forged" },
      body: '{"command":"true"}',
    });
    assert.equal(forged.status, 403, "session routes check the token too");

    const before = emulator.countRequests();
    await assert.rejects(emulator.fetch("https://example.com/v2/sandboxes"), /only serves https:\/\/vercel\.com\/api/);
    await assert.rejects(emulator.fetch("https://vercel.com/v9/projects"), /refuses/);
    await assert.rejects(emulator.fetch("http://vercel.com/api/v2/sandboxes"), /refuses/);
    assert.equal(emulator.countRequests(), before, "a refused URL never reaches any server");

    // The SDK hands its own undici dispatcher (no body timeout) to fetch; the emulator's fetch must use it.
    let dispatched = 0;
    const counting: typeof fetch = (input, init) => {
      const dispatcher = (init as { dispatcher?: { dispatch: (...args: unknown[]) => unknown } }).dispatcher;
      assert.ok(dispatcher, "the SDK passes a dispatcher");
      const wrapped = new Proxy(dispatcher, {
        get(target, property) {
          if (property === "dispatch") {
            return (...args: unknown[]) => {
              dispatched += 1;
              return target.dispatch(...args);
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      return emulator.fetch(input, { ...init, dispatcher: wrapped } as RequestInit);
    };
    const listed = await Sandbox.list({ ...emulator.sdkOptions, fetch: counting });
    assert.deepEqual(
      listed.sandboxes.map((entry) => entry.name),
      ["guarded"],
    );
    assert.equal(dispatched, 1);
  });

  it("refuses what it cannot honour: limits, names, unserved features (400), unknown routes (404, logged)", async () => {
    const refusals: [string, Partial<CreateParams>][] = [
      ["16 ports", { ports: Array.from({ length: 16 }, (_, index) => 3000 + index) }],
      ["a privileged port", { ports: [80] }],
      ["6 tags", { tags: { a: "1", b: "2", c: "3", d: "4", e: "5", f: "6" } }],
      ["a name with a slash", { name: "a/b" }],
      ["a reserved name", { name: "sessions" }],
      [
        "a domain rule with a transform",
        { networkPolicy: { allow: { "example.com": [{ transform: [{ headers: { a: "b" } }] }] } } },
      ],
      ["denied ranges", { networkPolicy: { allow: ["example.com"], subnets: { deny: ["10.0.0.0/8"] } } }],
      ["a git source", { source: { type: "git", url: "https://example.com/repo.git" } }],
      ["a timeout over 24 h", { timeout: 25 * 60 * 60 * 1000 }],
    ];
    for (const [what, options] of refusals) {
      const error = await apiError(create(options));
      assert.equal(error.response.status, 400, `${what}: ${error.message}`);
    }
    const sandbox = await create({ name: "taken" });
    const duplicate = await apiError(create({ name: "taken" }));
    assert.equal(duplicate.response.status, 400);
    assert.match(duplicate.message, /already exists/);
    assert.deepEqual(
      emulator.liveSandboxes().map((entry) => entry.id),
      ["taken"],
    );

    emulator.resetRequests();
    assert.equal((await apiError(sandbox.snapshot())).response.status, 404);
    assert.equal((await apiError(sandbox.openInteractive())).response.status, 404);
    assert.equal((await apiError(sandbox.update({ tags: { a: "b" } }))).response.status, 404);
    assert.equal((await apiError(sandbox.listSessions())).response.status, 404);
    assert.equal(
      (await apiError(Sandbox.fork({ ...emulator.sdkOptions, sourceSandbox: "taken" }))).response.status,
      404,
    );
    const session = sandbox.currentSession().sessionId;
    assert.deepEqual(
      emulator.unknownRoutes.map((route) => route.split("?")[0]),
      [
        `POST /v2/sandboxes/sessions/${session}/snapshot`,
        `POST /v2/sandboxes/sessions/${session}/interactive`,
        "PATCH /v2/sandboxes/taken",
        "GET /v2/sandboxes/sessions",
        "POST /v2/sandboxes/taken/fork",
      ],
    );
    assert.ok(emulator.requests.every((request) => request.status === 404));
    assert.equal(emulator.countRequests(INTERACTIVE_ROUTE), 0, "interactive shells are not emulated yet");
  });

  it("stop() deletes every sandbox, kills every command and closes the port", async () => {
    const own = await startVercelEmulator();
    const sandbox = await Sandbox.create({ ...own.sdkOptions });
    await sandbox.runCommand({ cmd: "sleep", args: ["30"], detached: true });
    await own.seedForeignSandbox();
    assert.equal(own.liveSandboxes().length, 2);
    await own.stop();
    assert.deepEqual(own.liveSandboxes(), []);
    await assert.rejects(fetch(`${own.url}/v2/sandboxes`));
    await own.stop();
  });
});
