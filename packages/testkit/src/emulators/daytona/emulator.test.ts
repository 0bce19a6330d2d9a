// Wire tests: the real Daytona SDKs (0.218 and 0.180) against the Daytona
// emulator, which runs every sandbox for real on its backend runtime.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { deleteAll, emulatorFetch, gone, openClient } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";
import { DAYTONA_SDKS, type DaytonaClient, daytonaRenamed } from "./sdk.fixture.js";

/** The part of the SDK's own `@daytona/api-client` these tests call (it is not a dependency of the testkit). */
interface ApiClientModule {
  Configuration: new (options: { basePath: string; baseOptions: { headers: Record<string, string> } }) => unknown;
  SandboxApi: new (
    configuration: unknown,
  ) => {
    getSandbox(idOrName: string): Promise<{ data: Record<string, unknown> }>;
    listSandboxes(
      organizationId?: string,
      cursor?: string,
      limit?: number,
    ): Promise<{ data: { items: Record<string, unknown>[]; nextCursor: string | null } }>;
    getToolboxProxyUrl(id: string): Promise<{ data: { url: string } }>;
  };
}

for (const sdk of DAYTONA_SDKS) {
  const { DaytonaAuthenticationError, DaytonaAuthorizationError, DaytonaConflictError, DaytonaNotFoundError } = sdk.sdk;

  describe(`Daytona emulator with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;

    before(async () => {
      emulator = await startDaytonaEmulator();
      daytona = openClient(sdk, emulator);
    });

    after(async () => {
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    // A failed test must not leave sandboxes behind for the next one's assertions.
    afterEach(() => deleteAll(emulator));

    it("create → upload → exec → download → delete, every request authenticated", async () => {
      emulator.resetRequests();
      const sandbox = await daytona.create({
        envVars: { GREETING: "hi" },
        labels: { owner: "me" },
        snapshot: "my-snapshot",
        autoStopInterval: 0,
        autoArchiveInterval: 60,
        autoDeleteInterval: 120,
      });
      assert.equal(sandbox.state, "started");
      assert.deepEqual(sandbox.labels, { owner: "me", "code-toolbox-language": "python" });
      assert.deepEqual(sandbox.env, { GREETING: "hi" });
      assert.deepEqual(
        [sandbox.snapshot, sandbox.cpu, sandbox.memory, sandbox.disk, sandbox.target],
        ["my-snapshot", 1, 1, 3, "us"],
      );
      assert.deepEqual(
        [sandbox.autoStopInterval, sandbox.autoArchiveInterval, sandbox.autoDeleteInterval],
        [0, 60, 120],
      );
      assert.deepEqual(emulator.liveSandboxes(), [
        { id: sandbox.id, metadata: sandbox.labels, foreign: false, state: "started" },
      ]);

      await sandbox.fs.uploadFile(Buffer.from("one\n"), "work/one.txt");
      await sandbox.fs.uploadFiles([
        { source: Buffer.from("A"), destination: "work/src/a.txt" },
        { source: Buffer.from("B"), destination: "/home/daytona/work/src/b.txt" },
      ]);
      const result = await sandbox.process.executeCommand(
        'cat one.txt src/a.txt src/b.txt; echo " $GREETING $EXTRA"; echo oops >&2; exit 7',
        "/home/daytona/work",
        { EXTRA: "there" },
        10,
      );
      assert.equal(result.exitCode, 7);
      assert.equal(result.result, "one\nAB hi there\noops\n", "stdout and stderr come back merged");

      const bytes = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
      await sandbox.fs.uploadFile(bytes, "bin/all.bin");
      assert.deepEqual(await sandbox.fs.downloadFile("/home/daytona/bin/all.bin"), bytes);
      const dumped = await sandbox.process.executeCommand("od -An -tx1 -N4 bin/all.bin | tr -d ' \\n'");
      assert.equal(dumped.result, "00010203", "a file written through the SDK is what a command reads");
      const batch = await sandbox.fs.downloadFiles([{ source: "work/one.txt" }, { source: "work/missing.txt" }]);
      assert.equal(batch[0]?.result?.toString(), "one\n");
      assert.equal(batch[1]?.result, undefined);
      assert.match(batch[1]?.error ?? "", /not found/);

      await sandbox.delete();
      await gone(emulator, sandbox.id);
      await assert.rejects(daytona.get(sandbox.id), DaytonaNotFoundError);

      const toolbox = emulator.requests.filter((request) => request.route.startsWith("POST /toolbox/"));
      assert.deepEqual(
        toolbox.map((request) => `${request.route} ${request.status}`),
        [
          "POST /toolbox/:id/files/bulk-upload 200",
          "POST /toolbox/:id/files/bulk-upload 200",
          "POST /toolbox/:id/process/execute 200",
          "POST /toolbox/:id/files/bulk-upload 200",
          "POST /toolbox/:id/files/bulk-download 200",
          "POST /toolbox/:id/process/execute 200",
          "POST /toolbox/:id/files/bulk-download 200",
        ],
      );
      assert.deepEqual(
        emulator.requests.slice(0, 2).map((request) => `${request.route} ${request.status}`),
        ["POST /api/sandbox 200", "POST /toolbox/:id/files/bulk-upload 200"],
        "create from a snapshot is answered once the sandbox started, so the SDK does not poll",
      );
      assert.equal(emulator.countRequests("DELETE /api/sandbox/:id"), 1);
      for (const request of emulator.requests) {
        assert.equal(request.headers.authorization, `Bearer ${emulator.apiKey}`);
        assert.equal(request.headers["x-daytona-source"], "sdk-typescript-legacy");
        assert.equal(request.headers["x-daytona-sdk-version"], sdk.version);
        assert.ok(request.path.startsWith(`/toolbox/${sandbox.id}/`) || request.path.startsWith("/api/sandbox"));
      }
      assert.deepEqual(emulator.unknownRoutes, []);
    });

    it("lists by labels across pages (nextCursor), foreign sandboxes included as the provider would", async () => {
      const labels = { suite: "list", "team/name": "a b&c=d" };
      const ours = await Promise.all([1, 2, 3, 4].map(() => daytona.create({ labels })));
      const other = await daytona.create({ labels: { suite: "other" }, name: "other-box" });
      const foreignId = await emulator.seedForeignSandbox({ ...labels, owner: "someone-else" });
      emulator.resetRequests();

      const seen: string[] = [];
      for await (const item of daytona.list({ labels })) seen.push(item.id);
      assert.deepEqual(seen.sort(), [...ours.map((sandbox) => sandbox.id), foreignId].sort());
      assert.equal(emulator.countRequests("GET /api/sandbox"), 2, "five matches are two pages of three");
      const first = new URL(emulator.requests[0]!.path, emulator.url).searchParams;
      assert.deepEqual(JSON.parse(first.get("labels") ?? ""), labels);
      assert.equal(first.get("cursor"), null);
      assert.ok(new URL(emulator.requests[1]!.path, emulator.url).searchParams.get("cursor"));

      emulator.resetRequests();
      const one: string[] = [];
      for await (const item of daytona.list({ labels, limit: 1 })) one.push(item.id);
      assert.equal(one.length, 5);
      assert.equal(emulator.countRequests("GET /api/sandbox"), 5, "limit lowers the page size");

      const named: string[] = [];
      for await (const item of daytona.list({ name: "OTHER-" })) named.push(item.id);
      assert.deepEqual(named, [other.id], "name filters by case-insensitive prefix");
      await other.stop();
      const stopped: string[] = [];
      for await (const item of daytona.list({ states: [sdk.sdk.SandboxState.STOPPED] })) stopped.push(item.id);
      assert.deepEqual(stopped, [other.id]);

      const listed = await daytona.get("other-box");
      assert.equal(listed.id, other.id, "get takes a name as well as an id");
      assert.equal(emulator.liveSandboxes().find((entry) => entry.id === foreignId)?.foreign, true);
    });

    it("names are unique, images become builds, and the low-level API carries sandboxClass and warmPoolId", async () => {
      const named = await daytona.create({ name: "my-box" });
      await assert.rejects(daytona.create({ name: "my-box" }), DaytonaConflictError);
      emulator.resetRequests();
      const built = await daytona.create({ image: "python:3.12-slim", resources: { cpu: 2, memory: 4, disk: 5 } });
      assert.equal(emulator.requests[0]?.route, "POST /api/sandbox");
      assert.ok(emulator.countRequests("GET /api/sandbox/:id") >= 1, "a build is answered at once and polled");
      assert.equal(built.snapshot, undefined);
      assert.deepEqual([built.cpu, built.memory, built.disk], [2, 4, 5]);
      assert.match(built.buildInfo?.dockerfileContent ?? "", /FROM python:3\.12-slim/);
      assert.equal(named.snapshot, "daytonaio/sandbox:0.5.0");

      const api = sdk.requireDependency("@daytona/api-client") as ApiClientModule;
      const sandboxApi = new api.SandboxApi(
        new api.Configuration({
          basePath: emulator.apiUrl,
          baseOptions: { headers: { Authorization: `Bearer ${emulator.apiKey}` } },
        }),
      );
      const { data } = await sandboxApi.getSandbox("my-box");
      assert.equal(data.id, named.id);
      assert.equal(data.sandboxClass, "container");
      assert.ok("warmPoolId" in data, "the sandbox JSON carries warmPoolId");
      assert.equal(data.warmPoolId, null);
      const page = await sandboxApi.listSandboxes(undefined, undefined, 1);
      assert.equal(page.data.items.length, 1);
      assert.equal(page.data.items[0]?.sandboxClass, "container");
      assert.ok("warmPoolId" in (page.data.items[0] ?? {}));
      assert.ok(page.data.nextCursor);
      assert.deepEqual((await sandboxApi.getToolboxProxyUrl(named.id)).data, { url: emulator.toolboxProxyUrl });
    });

    it("stop kills processes and sessions and keeps files; start brings the toolbox back; ephemeral sandboxes go on stop", async () => {
      const sandbox = await daytona.create();
      await sandbox.fs.uploadFile(Buffer.from("kept"), "kept.txt");
      await sandbox.process.createSession("background");
      await sandbox.process.executeSessionCommand("background", { command: "sleep 30", runAsync: true });
      await sandbox.stop();
      assert.equal(sandbox.state, "stopped");
      assert.equal(emulator.liveSandboxes()[0]?.state, "stopped");
      await assert.rejects(
        sandbox.process.executeCommand("true"),
        DaytonaConflictError,
        "the toolbox needs a started sandbox",
      );
      await assert.rejects(sandbox.stop(), (error: unknown) => (error as { statusCode?: number }).statusCode === 400);
      await sandbox.start();
      assert.equal(sandbox.state, "started");
      assert.equal((await sandbox.fs.downloadFile("kept.txt")).toString(), "kept");
      assert.deepEqual(await sandbox.process.listSessions(), []);
      assert.equal((await sandbox.process.executeCommand("echo back")).result, "back\n");

      const ephemeral = await daytona.create({ ephemeral: true });
      assert.equal(ephemeral.autoDeleteInterval, 0);
      await ephemeral.stop();
      await gone(emulator, ephemeral.id);
      await assert.rejects(daytona.get(ephemeral.id), DaytonaNotFoundError);
    });

    it("credentials: a wrong API key gets 401 everywhere; a JWT works only with its organization", async () => {
      emulator.resetRequests();
      const wrong = openClient(sdk, emulator, { apiKey: "dtn_wrong" });
      await assert.rejects(wrong.create(), DaytonaAuthenticationError);
      await wrong[Symbol.asyncDispose]();
      assert.equal(emulator.requests[0]?.status, 401);
      assert.deepEqual(emulator.liveSandboxes(), []);

      const sandbox = await daytona.create();
      const toolbox = (key: string) =>
        fetch(`${emulator.toolboxProxyUrl}/${sandbox.id}/process/execute`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ command: "echo ok" }),
        });
      const refused = await toolbox("dtn_wrong");
      assert.equal(refused.status, 401);
      assert.equal(((await refused.json()) as { source: string }).source, "DAYTONA_PROXY");
      const accepted = await toolbox(emulator.apiKey);
      assert.deepEqual(await accepted.json(), { exitCode: 0, result: "ok\n" });
      assert.equal((await emulatorFetch(emulator, "/api/sandbox", { headers: { authorization: "" } })).status, 401);

      const withJwt = await startDaytonaEmulator({ jwtToken: "jwt-token", organizationId: "org-1" });
      const jwtOptions = { apiUrl: withJwt.apiUrl, target: withJwt.target, jwtToken: "jwt-token" };
      const member = new sdk.sdk.Daytona({ ...jwtOptions, organizationId: "org-1", useDeprecatedPolling: true });
      const outsider = new sdk.sdk.Daytona({ ...jwtOptions, organizationId: "org-2", useDeprecatedPolling: true });
      try {
        const owned = await member.create();
        assert.equal(owned.organizationId, "org-1");
        assert.equal((await owned.process.executeCommand("echo jwt")).result, "jwt\n");
        await assert.rejects(outsider.get(owned.id), DaytonaAuthorizationError);
        for (const request of withJwt.requests) {
          assert.equal(request.headers.authorization, "Bearer jwt-token");
        }
        assert.deepEqual(
          [...new Set(withJwt.requests.map((request) => request.headers["x-daytona-organization-id"]))],
          ["org-1", "org-2"],
        );
      } finally {
        await member[Symbol.asyncDispose]();
        await outsider[Symbol.asyncDispose]();
        await withJwt.stop();
      }
    });

    it("signed preview URLs and unknown routes are answered 404 and logged, never faked", async () => {
      const sandbox = await daytona.create();
      emulator.resetRequests();
      await assert.rejects(sandbox.getSignedPreviewUrl(3000, 60), DaytonaNotFoundError);
      const raw = await emulatorFetch(emulator, "/api/nothing");
      assert.equal(raw.status, 404);
      assert.equal(((await raw.json()) as { source: string }).source, "DAYTONA_API");
      assert.deepEqual(emulator.unknownRoutes, [
        `GET /api/sandbox/${sandbox.id}/ports/3000/signed-preview-url?expiresInSeconds=60`,
        "GET /api/nothing",
      ]);
    });

    it(
      sdk.eventStream
        ? "the SDK's socket.io event stream gets 404 and the SDK falls back to polling"
        : "this SDK opens no event stream",
      async () => {
        emulator.resetRequests();
        const defaults = new sdk.sdk.Daytona({ ...emulator.sdkOptions });
        try {
          const sandbox = await defaults.create();
          await sandbox.stop();
          await sandbox.start();
          assert.equal(sandbox.state, "started");
          await sandbox.delete();
          await gone(emulator, sandbox.id);
        } finally {
          await defaults[Symbol.asyncDispose]();
        }
        const socketRequests = emulator.unknownRoutes.filter((route) => route.startsWith("GET /api/socket.io/"));
        if (sdk.eventStream) {
          assert.ok(socketRequests.length >= 1);
          assert.match(socketRequests[0]!, /transport=websocket/);
        } else {
          assert.deepEqual(socketRequests, []);
        }
      },
    );
  });
}

describe(`Daytona emulator with ${daytonaRenamed.label}`, () => {
  it("speaks the same wire: create → upload → exec → download → delete", async () => {
    const emulator = await startDaytonaEmulator();
    const daytona = openClient(daytonaRenamed, emulator);
    try {
      const sandbox = await daytona.create({ labels: { package: "renamed" } });
      await sandbox.fs.uploadFile(Buffer.from("renamed\n"), "hello.txt");
      const result = await sandbox.process.executeCommand("cat hello.txt; echo $FOO", undefined, { FOO: "bar" });
      assert.deepEqual([result.exitCode, result.result], [0, "renamed\nbar\n"]);
      assert.equal((await sandbox.fs.downloadFile("hello.txt")).toString(), "renamed\n");
      await sandbox.delete();
      await gone(emulator, sandbox.id);
      assert.equal(emulator.requests[0]?.headers["x-daytona-source"], "sdk-typescript");
      assert.equal(emulator.requests[0]?.headers["x-daytona-sdk-version"], "0.216.0");
      assert.deepEqual(emulator.unknownRoutes, []);
    } finally {
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    }
  });
});
