// A launch through the real @vercel/sandbox SDK against the emulator is its create alone: no mkdir
// makes the workspace. Its first use makes it within that use's own request: a command in it (waited
// or started), the symlink guard of a file call, a file written there. Each starts in the home
// directory and names the workspace from there, so it lands in the sandbox's home wherever that is
// (the emulator's own directory when it runs commands without bubblewrap).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import type { VercelHandle } from "./handle.js";

const { emulator, runtime } = await emulated({ owner: "launch-wire-tests" });
const COMMAND = "POST /v2/sandboxes/sessions/:sessionId/cmd";
const HOME = "/vercel/sandbox";
const routes = () => emulator.requests.map((request) => request.route);
/** Prints where it runs and how many entries are there. */
const atRoot = 'test -w . && printf "%s\\n%s\\n" "$PWD" "$(ls -A | wc -l)"';
/** The home directory as the sandbox's commands see it. */
const homeOf = async (handle: VercelHandle) => (await runtime.exec(handle, { argv: ["pwd"], cwd: HOME })).stdout.trim();

describe("a launch sends the create alone; the workspace is made by its first use", () => {
  test("one request; the first command, run in the workspace, finds it (one command, nothing before it)", async () => {
    emulator.resetRequests();
    const handle = await runtime.launch();
    assert.deepEqual(routes(), ["POST /v3/sandboxes"]);
    emulator.resetRequests();
    const ran = await runtime.exec(handle, { shell: atRoot });
    assert.equal(ran.exitCode, 0, ran.stderr);
    assert.deepEqual(routes(), [COMMAND]);
    assert.deepEqual(ran.stdout.trim().split("\n"), [`${await homeOf(handle)}/workspace`, "0"]);
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
    assert.equal(logs.exitCode, 0, logs.stderr);
    assert.deepEqual(logs.stdout.trim().split("\n"), [`${await homeOf(handle)}/workspace`, "0"]);
    await runtime.destroy(handle);
  });

  test("a file written first lands in the workspace; after a command elsewhere, the symlink guard makes it", async () => {
    const first = await runtime.launch();
    await runtime.writeFiles(first, [{ path: "a.txt", content: "hello" }]);
    assert.equal((await runtime.exec(first, { argv: ["cat", "a.txt"] })).stdout, "hello");
    await runtime.destroy(first);
    const handle = await runtime.launch();
    const home = await homeOf(handle);
    const made = { argv: ["test", "-d", `${home}/workspace`], cwd: "/tmp" };
    assert.equal((await runtime.exec(handle, made)).exitCode, 1, "nothing made the workspace yet");
    // The read's guarded command enters the workspace, making it in the sandbox's home.
    await expectCode(runtime.readFile(handle, "b.txt"), "NOT_FOUND");
    assert.equal((await runtime.exec(handle, made)).exitCode, 0, "the read's command made it");
    await runtime.writeFiles(handle, [{ path: "b.txt", content: "there" }]);
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "b.txt")), "there");
    assert.equal((await runtime.exec(handle, { argv: ["cat", "b.txt"] })).stdout, "there");
    await runtime.destroy(handle);
  });

  test("a workspace root that cannot be made: a command in it is NOT_FOUND naming it, and nothing ran", async () => {
    const handle = await runtime.launch();
    // A file where the workspace would be: it can be neither made nor entered.
    assert.equal((await runtime.exec(handle, { argv: ["touch", "workspace"], cwd: HOME })).exitCode, 0);
    const failed = await expectCode(runtime.exec(handle, { argv: ["touch", "ran"] }), "NOT_FOUND");
    assert.equal(failed.details.cwd, "/vercel/sandbox/workspace");
    const nothingRan = await runtime.exec(handle, { shell: "test -f workspace && test ! -e ran", cwd: HOME });
    assert.equal(nothingRan.exitCode, 0, "nothing ran, nothing replaced the file");
    await runtime.destroy(handle);
  });
});
