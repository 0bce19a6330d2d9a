// A launch through the real @vercel/sandbox SDK against the emulator is its create alone: no mkdir
// makes the workspace. Its first use makes it within that use's own request: a command in it (waited
// or started), the symlink guard of a file call, a file written there.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "launch-wire-tests" });
const COMMAND = "POST /v2/sandboxes/sessions/:sessionId/cmd";
const routes = () => emulator.requests.map((request) => request.route);
const atRoot = 'test "$(basename "$PWD")" = workspace && test -w . && ls -A | wc -l';

describe("a launch sends the create alone; the workspace is made by its first use", () => {
  test("one request; the first command, run in the workspace, finds it (one command, nothing before it)", async () => {
    emulator.resetRequests();
    const handle = await runtime.launch();
    assert.deepEqual(routes(), ["POST /v3/sandboxes"]);
    emulator.resetRequests();
    const ran = await runtime.exec(handle, { shell: atRoot });
    assert.equal(ran.exitCode, 0, ran.stderr);
    assert.equal(ran.stdout.trim(), "0");
    assert.deepEqual(routes(), [COMMAND]);
    const argv = await runtime.exec(handle, { argv: ["sh", "-c", 'printf "%s|" "$@"', "sh", "a b", "$c", ""] });
    assert.equal(argv.stdout, "a b|$c||", "arguments reach the program unchanged");
    await runtime.destroy(handle);
  });

  test("a started command finds it too", async () => {
    const handle = await runtime.launch();
    const ref = await runtime.startCommand(handle, { shell: atRoot, sessionId: "at-root" });
    await waitFor(async () => (await runtime.commandStatus(handle, ref)).state === "exited", {
      timeoutMs: 30_000,
      what: "the started command's end",
    });
    const logs = await runtime.commandLogs(handle, ref);
    assert.deepEqual([logs.exitCode, logs.stdout.trim()], [0, "0"], logs.stderr);
    await runtime.destroy(handle);
  });

  test("a file written first lands in the workspace; after a command elsewhere, the symlink guard makes it", async () => {
    const first = await runtime.launch();
    await runtime.writeFiles(first, [{ path: "a.txt", content: "hello" }]);
    assert.equal((await runtime.exec(first, { argv: ["cat", "a.txt"] })).stdout, "hello");
    await runtime.destroy(first);
    const handle = await runtime.launch();
    assert.equal((await runtime.exec(handle, { argv: ["true"], cwd: "/tmp" })).exitCode, 0);
    await runtime.writeFiles(handle, [{ path: "b.txt", content: "there" }]);
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "b.txt")), "there");
    assert.equal((await runtime.exec(handle, { argv: ["cat", "b.txt"] })).stdout, "there");
    await runtime.destroy(handle);
  });
});
