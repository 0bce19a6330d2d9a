// Sessions through the real @vercel/sandbox SDK: stop, resume (explicit and
// through the SDK's 410 retry), persistence, timeouts and their extension.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { APIError, Sandbox, StreamError } from "@vercel/sandbox";
import { delay } from "../../assertions/index.js";
import { startVercelEmulator, type VercelEmulator } from "./emulator.js";

describe("Vercel emulator sessions with the real @vercel/sandbox SDK", () => {
  let emulator: VercelEmulator;

  before(async () => {
    emulator = await startVercelEmulator();
  });

  after(() => emulator.stop());

  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) {
      await Sandbox.get({ ...emulator.sdkOptions, name: id })
        .then((sandbox) => sandbox.delete())
        .catch(() => undefined);
    }
  });

  const state = (name: string) => emulator.liveSandboxes().find((entry) => entry.id === name)?.state;

  it("a stopped persistent sandbox keeps its files; get() reports it stopped and the next call resumes it", async () => {
    const sandbox = await Sandbox.create({ ...emulator.sdkOptions, name: "keeper" });
    const firstSession = sandbox.currentSession().sessionId;
    await sandbox.writeFiles([{ path: "kept.txt", content: "kept" }]);
    const background = await sandbox.runCommand({ cmd: "sleep", args: ["30"], detached: true });
    const stopped = await sandbox.stop();
    assert.equal(stopped.status, "stopped");
    assert.equal(state("keeper"), "stopped");

    emulator.resetRequests();
    const again = await Sandbox.get({ ...emulator.sdkOptions, name: "keeper" });
    assert.equal(again.status, "stopped", "get alone does not resume");
    const cat = await again.runCommand("cat", ["kept.txt"]);
    assert.equal(await cat.stdout(), "kept");
    assert.equal(again.status, "running");
    assert.notEqual(again.currentSession().sessionId, firstSession, "a resume starts a new session");
    assert.equal(state("keeper"), "running");
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [
        "GET /v2/sandboxes/:name 200",
        "POST /v2/sandboxes/sessions/:sessionId/cmd 410",
        "GET /v2/sandboxes/:name 200",
        "POST /v2/sandboxes/sessions/:sessionId/cmd 200",
      ],
    );
    assert.ok(emulator.requests[2]?.path.includes("resume=true"));
    const lost = await again.getCommand(background.cmdId).then(
      () => assert.fail("commands belong to their session"),
      (error: unknown) => error,
    );
    assert.ok(lost instanceof APIError && lost.response.status === 404);

    const oldSession = await emulator.fetch(
      `${emulator.baseUrl}/v2/sandboxes/sessions/${firstSession}/fs/read?teamId=${emulator.credentials.teamId}`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${emulator.credentials.token}` },
        body: '{"path":"kept.txt"}',
      },
    );
    assert.equal(oldSession.status, 410);
    assert.equal(((await oldSession.json()) as { error: { code: string } }).error.code, "sandbox_stopped");
  });

  it("a non-persistent sandbox starts each session with a fresh workspace; resume: true resumes at once", async () => {
    const sandbox = await Sandbox.create({ ...emulator.sdkOptions, name: "ephemeral", persistent: false });
    assert.equal(sandbox.persistent, false);
    await sandbox.writeFiles([{ path: "lost.txt", content: "lost" }]);
    await sandbox.stop();
    await sandbox.stop();
    const resumed = await Sandbox.get({ ...emulator.sdkOptions, name: "ephemeral", resume: true });
    assert.equal(resumed.status, "running");
    assert.equal(await resumed.readFileToBuffer({ path: "lost.txt" }), null);
    assert.equal(state("ephemeral"), "running");
  });

  it("disposing a created sandbox stops it (it is not deleted)", async () => {
    {
      await using sandbox = await Sandbox.create({ ...emulator.sdkOptions, name: "disposed" });
      assert.equal(sandbox.status, "running");
    }
    assert.equal(state("disposed"), "stopped");
  });

  it("a session stops when its timeout passes; extendTimeout moves the deadline; streams end with sandbox_stopped", async () => {
    const short = await Sandbox.create({ ...emulator.sdkOptions, name: "short", timeout: 700 });
    const extended = await Sandbox.create({ ...emulator.sdkOptions, name: "extended", timeout: 700 });
    await extended.extendTimeout(60_000);
    assert.equal(extended.currentSession().timeout, 60_700);
    const follower = await short.runCommand({ cmd: "sh", args: ["-c", "echo before; sleep 30"], detached: true });
    const lines: string[] = [];
    const failure = await (async () => {
      for await (const log of follower.logs()) lines.push(log.data);
    })().then(
      () => assert.fail("a log stream cut by the session's end must fail"),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof StreamError, String(failure));
    assert.equal(failure.code, "sandbox_stopped");
    assert.deepEqual(lines, ["before\n"]);
    await delay(100);
    assert.equal(state("short"), "stopped");
    assert.equal(state("extended"), "running");
    const tooLong = await extended.extendTimeout(24 * 60 * 60 * 1000).then(
      () => assert.fail("past 24 h must be refused"),
      (error: unknown) => error,
    );
    assert.ok(tooLong instanceof APIError && tooLong.response.status === 400);
  });
});
