// A launch through the real @daytonaio/sdk against the emulator is its create alone: no createFolder
// makes the workspace. Its first use makes it within that use's own request: a command in it (run to
// its end, spawned in a session, started), a file operation, the symlink guard of a file call. Each
// starts in the sandbox user's home (a session: from `$HOME`) and names the workspace from there, so it
// lands in the sandbox's home wherever that is (the emulator's own directory without bubblewrap).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import type { DaytonaHandle } from "./handle.js";

const { emulator, runtime } = await emulated({ owner: "launch-wire-tests" });
const EXECUTE = "POST /toolbox/:id/process/execute";
const HOME = "/home/daytona";
const routes = () => emulator.requests.map((request) => request.route);
/** Prints where it runs and how many entries are there. */
const atRoot = 'test -w . && printf "%s\\n%s\\n" "$PWD" "$(ls -A | wc -l)"';
/** The home directory as the sandbox's commands see it. */
const homeOf = async (handle: DaytonaHandle) =>
  (await runtime.exec(handle, { argv: ["pwd"], cwd: HOME })).stdout.trim();
/** Whether the workspace is a directory in the sandbox's home. */
const madeInHome = async (handle: DaytonaHandle) =>
  (await runtime.exec(handle, { argv: ["test", "-d", `${await homeOf(handle)}/workspace`], cwd: "/tmp" })).exitCode ===
  0;

describe("a launch sends the create alone; the workspace is made by its first use", () => {
  test("one request; the first command, run in the workspace, finds it (one execute, nothing before it)", async () => {
    emulator.resetRequests();
    const handle = await runtime.launch();
    assert.deepEqual(routes(), ["POST /api/sandbox"]);
    emulator.resetRequests();
    const ran = await runtime.exec(handle, { shell: atRoot });
    assert.equal(ran.exitCode, 0, ran.stdout);
    assert.deepEqual(routes(), [EXECUTE]);
    assert.deepEqual(ran.stdout.trim().split("\n"), [`${await homeOf(handle)}/workspace`, "0"]);
    await runtime.destroy(handle);
  });

  test("a spawned command and a started one find it too", async () => {
    const spawnedIn = await runtime.launch();
    const spawned = await runtime.spawn(spawnedIn, { shell: atRoot });
    const result = await spawned.result;
    assert.equal(result.exitCode, 0, result.stdout);
    assert.deepEqual(result.stdout.trim().split("\n"), [`${await homeOf(spawnedIn)}/workspace`, "0"]);
    await runtime.destroy(spawnedIn);
    const started = await runtime.launch();
    const ref = await runtime.startCommand(started, { shell: atRoot, sessionId: "at-root" });
    await waitFor(async () => (await runtime.commandStatus(started, ref)).state === "exited", {
      timeoutMs: 30_000,
      what: "the started command's end",
    });
    const logs = await runtime.commandLogs(started, ref);
    assert.equal(logs.exitCode, 0, logs.stdout);
    assert.deepEqual(logs.stdout.trim().split("\n"), [`${await homeOf(started)}/workspace`, "0"]);
    await runtime.destroy(started);
  });

  test("a fresh sandbox's workspace lists nothing and stats as a directory, made in the sandbox's home", async () => {
    const handle = await runtime.launch();
    assert.deepEqual(await runtime.listDir(handle, ""), []);
    assert.equal((await runtime.stat(handle, "")).kind, "directory");
    assert.ok(await madeInHome(handle));
    await runtime.destroy(handle);
  });

  test("after a command elsewhere, a file call's symlink guard makes the workspace and the file lands in it", async () => {
    const handle = await runtime.launch();
    assert.equal((await runtime.exec(handle, { argv: ["true"], cwd: "/tmp" })).exitCode, 0);
    assert.equal(await madeInHome(handle), false, "nothing made the workspace yet");
    await runtime.writeFiles(handle, [{ path: "a.txt", content: "hello" }]);
    assert.ok(await madeInHome(handle));
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "a.txt")), "hello");
    assert.equal((await runtime.exec(handle, { argv: ["cat", "a.txt"] })).stdout, "hello");
    await runtime.destroy(handle);
  });

  test("a workspace root that cannot be made: exec and file calls say so, nothing ran", async () => {
    const handle = await runtime.launch();
    // A file where the workspace would be: it can be neither made nor entered.
    assert.equal((await runtime.exec(handle, { argv: ["touch", "workspace"], cwd: HOME })).exitCode, 0);
    const failed = await expectCode(runtime.exec(handle, { argv: ["touch", "ran"] }), "NOT_FOUND");
    assert.equal(failed.details.cwd, "/home/daytona/workspace");
    assert.match(failed.message, /the working directory \/home\/daytona\/workspace does not exist.*could not make it/);
    const listing = await expectCode(runtime.listDir(handle, ""), "UNEXPECTED");
    assert.match(listing.message, /the workspace root \/home\/daytona\/workspace could not be made or entered/);
    const nothingRan = await runtime.exec(handle, { shell: "test -f workspace && test ! -e ran", cwd: HOME });
    assert.equal(nothingRan.exitCode, 0, "nothing ran, nothing replaced the file");
    await runtime.destroy(handle);
  });
});
