// A launch through the real e2b SDK against the emulator is its create alone: no MakeDir makes the
// workspace. Its first use makes it within that use's own request: a command in it (every kind of
// start), the symlink guard of a file call, and a listing of a workspace nothing has used lists nothing.
// Each starts in the sandbox's home and names the workspace from there: `$HOME/workspace` is where it
// lands, also where the emulator runs commands without bubblewrap (its home is then a directory of its own).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "launch-wire-tests" });
const START = "rpc process.Process/Start";
const routes = () => emulator.requests.map((request) => request.route);
const atRoot = 'test "$PWD" = "$HOME/workspace" && test -w . && ls -A | wc -l';
const madeInHome = { shell: 'test -d "$HOME/workspace"', cwd: "/tmp" };

describe("a launch sends the create alone; the workspace is made by its first use", () => {
  test("one request; the first command, run in the workspace, finds it (one start, nothing before it)", async () => {
    emulator.resetRequests();
    const handle = await runtime.launch();
    assert.deepEqual(routes(), ["POST /v2/sandboxes"]);
    emulator.resetRequests();
    const ran = await runtime.exec(handle, { shell: atRoot });
    assert.equal(ran.exitCode, 0, ran.stderr);
    assert.equal(ran.stdout.trim(), "0");
    assert.deepEqual(routes(), [START]);
    await runtime.destroy(handle);
  });

  test("a started command and a spawned one find it too", async () => {
    const started = await runtime.launch();
    const ref = await runtime.startCommand(started, { shell: atRoot, sessionId: "at-root" });
    await waitFor(async () => (await runtime.commandStatus(started, ref)).state === "exited", {
      timeoutMs: 30_000,
      what: "the started command's end",
    });
    const logs = await runtime.commandLogs(started, ref);
    assert.deepEqual([logs.exitCode, logs.stdout.trim()], [0, "0"], logs.stderr);
    await runtime.destroy(started);
    const spawnedIn = await runtime.launch();
    const spawned = await runtime.spawn(spawnedIn, { shell: atRoot });
    const result = await spawned.result;
    assert.deepEqual([result.exitCode, result.stdout.trim()], [0, "0"], result.stderr);
    await runtime.destroy(spawnedIn);
  });

  test("a fresh sandbox's workspace lists nothing and stats as a directory", async () => {
    const handle = await runtime.launch();
    assert.deepEqual(await runtime.listDir(handle, ""), []);
    assert.equal((await runtime.stat(handle, "")).kind, "directory");
    await runtime.destroy(handle);
  });

  test("after a command elsewhere, a listing's symlink guard makes the workspace in the sandbox's home", async () => {
    const handle = await runtime.launch();
    assert.equal((await runtime.exec(handle, { shell: 'test ! -e "$HOME/workspace"', cwd: "/tmp" })).exitCode, 0);
    assert.deepEqual(await runtime.listDir(handle, ""), []);
    assert.equal((await runtime.exec(handle, madeInHome)).exitCode, 0, "the guard made $HOME/workspace");
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

  test("a workspace root that cannot be made: a command in it is NOT_FOUND naming it, and nothing ran", async () => {
    const handle = await runtime.launch();
    // A file where the workspace would be: it can be neither made nor entered.
    assert.equal((await runtime.exec(handle, { argv: ["touch", "workspace"], cwd: "/home/user" })).exitCode, 0);
    const failed = await expectCode(runtime.exec(handle, { argv: ["touch", "ran"] }), "NOT_FOUND");
    assert.equal(failed.details.cwd, "/home/user/workspace");
    const nothingRan = await runtime.exec(handle, { shell: "test -f workspace && test ! -e ran", cwd: "/home/user" });
    assert.equal(nothingRan.exitCode, 0, "nothing ran, nothing replaced the file");
    await runtime.destroy(handle);
  });
});
