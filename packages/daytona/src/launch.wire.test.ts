// A launch through the real @daytonaio/sdk against the emulator is its create alone: no createFolder
// makes the workspace. Its first use makes it within that use's own request: a command in it (run to
// its end, spawned in a session, started), a file operation, the symlink guard of a file call.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "launch-wire-tests" });
const EXECUTE = "POST /toolbox/:id/process/execute";
const routes = () => emulator.requests.map((request) => request.route);
const atRoot = 'test "$(basename "$PWD")" = workspace && test -w . && ls -A | wc -l';

describe("a launch sends the create alone; the workspace is made by its first use", () => {
  test("one request; the first command, run in the workspace, finds it (one execute, nothing before it)", async () => {
    emulator.resetRequests();
    const handle = await runtime.launch();
    assert.deepEqual(routes(), ["POST /api/sandbox"]);
    emulator.resetRequests();
    const ran = await runtime.exec(handle, { shell: atRoot });
    assert.equal(ran.exitCode, 0, ran.stdout);
    assert.equal(ran.stdout.trim(), "0");
    assert.deepEqual(routes(), [EXECUTE]);
    await runtime.destroy(handle);
  });

  test("a spawned command and a started one find it too", async () => {
    const spawnedIn = await runtime.launch();
    const spawned = await runtime.spawn(spawnedIn, { shell: atRoot });
    const result = await spawned.result;
    assert.deepEqual([result.exitCode, result.stdout.trim()], [0, "0"], result.stdout);
    await runtime.destroy(spawnedIn);
    const started = await runtime.launch();
    const ref = await runtime.startCommand(started, { shell: atRoot, sessionId: "at-root" });
    await waitFor(async () => (await runtime.commandStatus(started, ref)).state === "exited", {
      timeoutMs: 30_000,
      what: "the started command's end",
    });
    const logs = await runtime.commandLogs(started, ref);
    assert.deepEqual([logs.exitCode, logs.stdout.trim()], [0, "0"], logs.stdout);
    await runtime.destroy(started);
  });

  test("a fresh sandbox's workspace lists nothing and stats as a directory", async () => {
    const handle = await runtime.launch();
    assert.deepEqual(await runtime.listDir(handle, ""), []);
    assert.equal((await runtime.stat(handle, "")).kind, "directory");
    await runtime.destroy(handle);
  });

  test("after a command elsewhere, a file call's symlink guard makes the workspace and the file lands in it", async () => {
    const handle = await runtime.launch();
    assert.equal((await runtime.exec(handle, { argv: ["true"], cwd: "/tmp" })).exitCode, 0);
    await runtime.writeFiles(handle, [{ path: "a.txt", content: "hello" }]);
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "a.txt")), "hello");
    assert.equal((await runtime.exec(handle, { argv: ["cat", "a.txt"] })).stdout, "hello");
    await runtime.destroy(handle);
  });
});
