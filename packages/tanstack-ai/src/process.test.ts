// Commands and spawned processes over a real LocalRuntime: cwd, env overlay, exit codes, limits, aborts,
// stdin, separate output streams and kills.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { waitFor } from "@sandport/testkit/assertions";
import { type LocalTestRuntime, localTestRuntime, namespacesSkipReason } from "@sandport/testkit/fakes";
import { type SandboxHandle, UnsupportedCapabilityError } from "@tanstack/ai-sandbox";
import { sandportSandboxProvider } from "./provider.js";

/** Why the tests that assert the sandbox's own paths (`pwd` under `/workspace`) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

let local: LocalTestRuntime;
let handle: SandboxHandle;
before(async () => {
  local = await localTestRuntime("tanstack-process");
  handle = await sandportSandboxProvider({ runtime: local.runtime }).create({ id: "process" });
});
after(() => local.cleanup());

/** Everything an output stream yields, joined. */
async function drain(stream: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += chunk;
  return text;
}

describe("process.exec", () => {
  test("runs with sh -c in cwd, with the call's env over the env.set overlay, and reports the exit code", {
    skip: namespacesOnly,
  }, async () => {
    await handle.fs.mkdir("/workspace/sub");
    await handle.env.set({ BASE: "overlay", WHO: "overlay" });
    const result = await handle.process.exec('pwd; echo "$BASE $WHO"; echo oops >&2; exit 3', {
      cwd: "/workspace/sub",
      env: { WHO: "call" },
    });
    assert.deepEqual(result, {
      stdout: `${local.runtime.workspaceRoot}/sub\noverlay call\n`,
      stderr: "oops\n",
      exitCode: 3,
    });
  });

  test("the runtime's own marker in a copied environment is dropped, not refused, and the runtime sets its own", async () => {
    const result = await handle.process.exec('echo "$SANDPORT_EXEC_ID"', { env: { SANDPORT_EXEC_ID: "copied" } });
    assert.equal(result.exitCode, 0);
    assert.notEqual(result.stdout, "copied\n");
  });

  test("env.set refuses a bad name at once", async () => {
    await assert.rejects(handle.env.set({ "BAD-NAME": "x" }), (error) =>
      SandportError.hasCode(error, "INVALID_REQUEST"),
    );
  });

  test("a command past commandTimeoutMs exits 124 with the reason on stderr", async () => {
    const limited = await sandportSandboxProvider({ runtime: local.runtime, commandTimeoutMs: 300 }).resume({
      id: "process",
    });
    assert.ok(limited);
    const result = await limited.process.exec("echo before; sleep 30");
    assert.deepEqual(result, {
      stdout: "before\n",
      stderr: "command timed out: stopped by its time limit\n",
      exitCode: 124,
    });
  });

  test("an abort kills the command and rejects with ABORTED", async () => {
    const controller = new AbortController();
    const running = handle.process.exec("echo started > aborted.txt; sleep 30", { signal: controller.signal });
    // Abort once the command is known to run, not after a guessed delay.
    await waitFor(() => handle.fs.exists("aborted.txt"), { what: "the command to start" });
    controller.abort(new Error("enough"));
    await assert.rejects(running, (error) => SandportError.hasCode(error, "ABORTED"));
  });
});

describe("process.spawn", () => {
  test("stdin reaches the process; stdout and stderr arrive separately; wait gives the exit code", async () => {
    const child = await handle.process.spawn(
      'while read line; do echo "out:$line"; echo "err:$line" >&2; done; exit 4',
    );
    assert.equal(typeof child.pid, "number");
    await child.stdin.write("one\n");
    await child.stdin.write("two\n");
    await child.stdin.end();
    const [stdout, stderr, code] = await Promise.all([drain(child.stdout), drain(child.stderr), child.wait()]);
    assert.equal(stdout, "out:one\nout:two\n");
    assert.equal(stderr, "err:one\nerr:two\n");
    assert.equal(code, 4);
  });

  test("kill stops a process that would run on (wait gives 137); a signal the port cannot send is refused", async () => {
    const child = await handle.process.spawn("echo ready; exec sleep 60");
    const reader = child.stdout[Symbol.asyncIterator]();
    assert.deepEqual(await reader.next(), { done: false, value: "ready\n" });
    await assert.rejects(
      child.kill("SIGHUP"),
      (error) => error instanceof UnsupportedCapabilityError && error.capability === "kill with SIGHUP",
    );
    await child.kill("SIGTERM");
    assert.equal(await child.wait(), 137);
    assert.deepEqual(await reader.next(), { done: true, value: undefined });
  });

  test("the process starts in cwd with the env overlay under the call's env", { skip: namespacesOnly }, async () => {
    await handle.env.set({ FROM: "overlay" });
    const child = await handle.process.spawn('pwd; echo "$FROM $CALL"', { cwd: "sub", env: { CALL: "call" } });
    assert.equal(await drain(child.stdout), `${local.runtime.workspaceRoot}/sub\noverlay call\n`);
    assert.equal(await child.wait(), 0);
  });
});

describe("workingDirectory", () => {
  test("commands without a cwd start there, a relative cwd resolves against it, and git works there", {
    skip: namespacesOnly,
  }, async () => {
    await handle.fs.mkdir("/workspace/project/lib");
    const provider = sandportSandboxProvider({ runtime: local.runtime, workingDirectory: "project" });
    const inProject = await provider.resume({ id: "process" });
    assert.ok(inProject);
    const root = local.runtime.workspaceRoot;
    assert.equal((await inProject.process.exec("pwd")).stdout, `${root}/project\n`);
    assert.equal((await inProject.process.exec("pwd", { cwd: "lib" })).stdout, `${root}/project/lib\n`);
    assert.equal((await inProject.process.exec("pwd", { cwd: "/workspace" })).stdout, `${root}\n`);
    await inProject.process.exec("git init -q .");
    assert.equal(await handle.fs.exists("/workspace/project/.git"), true);
  });
});
