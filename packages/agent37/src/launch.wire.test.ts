// A launch over real fetch against the emulator is its create alone: no exec makes the workspace.
// Its first use makes it within that use's own request: a command in it, the symlink guard of a
// file call, and a listing of a workspace nothing has used lists nothing.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "launch-tests" });
const EXEC = "POST /v1/instances/:id/exec";
const routes = () => emulator.requests.map((request) => request.route);

describe("a launch sends the create alone; the workspace is made by its first use", () => {
  test("one request; the first command, run in the workspace, finds it (one exec, nothing before it)", async () => {
    emulator.resetRequests();
    const handle = await runtime.launch();
    assert.deepEqual(routes(), ["POST /v1/instances"]);
    emulator.resetRequests();
    const ran = await runtime.exec(handle, {
      shell: 'test "$(basename "$PWD")" = workspace && test -w . && ls -A | wc -l',
    });
    assert.equal(ran.exitCode, 0, ran.stderr);
    assert.equal(ran.stdout.trim(), "0");
    assert.equal(emulator.countRequests(EXEC), 1);
    await runtime.destroy(handle);
  });

  test("a fresh instance's workspace lists nothing and stats as a directory", async () => {
    const handle = await runtime.launch();
    assert.deepEqual(await runtime.listDir(handle, ""), []);
    assert.equal((await runtime.stat(handle, "")).kind, "directory");
    assert.deepEqual(await runtime.listDir(handle, ""), []);
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
