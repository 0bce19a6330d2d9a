// uploadFiles / downloadFiles report per file with deepagents' error values;
// failures that are not about a path propagate. execute maps results; both
// follow the working directory.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import {
  localTestRuntime,
  namespacesSkipReason,
  providerDown,
  RecordingRuntime,
  withoutMethods,
} from "@sandport/testkit/fakes";
import { expectSandboxError } from "./expect-sandbox-error.fixture.js";
import { createDeepAgentsSandbox } from "./index.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

const local = await localTestRuntime("langchain-files");
after(() => local.cleanup());
const bytes = (text: string) => new TextEncoder().encode(text);

describe("file transfer, per file", () => {
  test("uploads succeed or fail one by one; downloads return bytes or the framework's error value", {
    skip: namespacesOnly,
  }, async () => {
    const handle = await local.runtime.launch({});
    try {
      const sandbox = await createDeepAgentsSandbox({ runtime: local.runtime, handle });
      await local.runtime.mkdir?.(handle, "dir");
      const root = local.runtime.workspaceRoot;
      assert.deepEqual(
        await sandbox.uploadFiles([
          [`${root}/a.txt`, bytes("alpha")],
          ["/etc/evil", bytes("x")],
          ["dir", bytes("over a directory")],
          ["b/c.bin", new Uint8Array([0, 255])],
        ]),
        [
          { path: `${root}/a.txt`, error: null },
          { path: "/etc/evil", error: "invalid_path" },
          { path: "dir", error: "is_directory" },
          { path: "b/c.bin", error: null },
        ],
      );
      const downloads = await sandbox.downloadFiles(["a.txt", "b/c.bin", "missing.txt", "dir", "../x"]);
      assert.deepEqual(
        downloads.map(({ path, error }) => [path, error]),
        [
          ["a.txt", null],
          ["b/c.bin", null],
          ["missing.txt", "file_not_found"],
          ["dir", "is_directory"],
          ["../x", "invalid_path"],
        ],
      );
      assert.deepEqual([...(downloads[1]?.content ?? [])], [0, 255]);
      // Without stat, a directory cannot be told from a bad path.
      const noStat = await createDeepAgentsSandbox({ runtime: withoutMethods(local.runtime, ["stat"]), handle });
      assert.equal((await noStat.downloadFiles(["dir"]))[0]?.error, "invalid_path");
      // BaseSandbox's own tools run over execute.
      assert.match(JSON.stringify(await sandbox.ls(root)), /a\.txt/);
    } finally {
      await local.runtime.destroy(handle);
    }
  });

  test("a provider failure is an error, not a per-file value", async () => {
    const runtime = new RecordingRuntime();
    const handle = await runtime.launch({});
    const sandbox = await createDeepAgentsSandbox({ runtime, handle });
    runtime.fail({ method: "readFile", error: providerDown });
    await assert.rejects(Promise.resolve(sandbox.downloadFiles(["a"])), (error) =>
      SandportError.hasCode(error, "PROVIDER_UNAVAILABLE"),
    );
    runtime.fail({ method: "writeFiles", error: providerDown, times: 2 });
    await assert.rejects(Promise.resolve(sandbox.uploadFiles([["a", bytes("a")]])), (error) =>
      SandportError.hasCode(error, "PROVIDER_UNAVAILABLE"),
    );
  });
});

describe("execute", () => {
  test("stdout, marked stderr, exit codes; a command past its time limit rejects with COMMAND_TIMEOUT", async () => {
    const handle = await local.runtime.launch({});
    try {
      const sandbox = await createDeepAgentsSandbox({ runtime: local.runtime, handle, commandTimeoutMs: 300 });
      assert.deepEqual(await sandbox.execute("echo out; echo err >&2"), {
        output: "out\n\n[stderr] err",
        exitCode: 0,
        truncated: false,
      });
      assert.deepEqual(await sandbox.execute("true"), { output: "<no output>", exitCode: 0, truncated: false });
      assert.deepEqual(await sandbox.execute("exit 3"), {
        output: "<no output>\n\nExit code: 3",
        exitCode: 3,
        truncated: false,
      });
      // As deepagents' Daytona sandbox rejects a command past its timeout; what it wrote is kept in the cause.
      const timedOut = await expectSandboxError(() => sandbox.execute("echo started; sleep 5"), "COMMAND_TIMEOUT");
      assert.match(timedOut.message, /^Command timed out after [\d.]+ seconds: echo started; sleep 5$/);
      assert.ok(SandportError.hasCode(timedOut.cause, "DEADLINE_EXCEEDED"));
      assert.equal(timedOut.cause.details.stdout, "started\n");
    } finally {
      await local.runtime.destroy(handle);
    }
  });

  test("a runtime failure is the framework's SandboxError COMMAND_FAILED, the Sandport error its cause", async () => {
    const runtime = new RecordingRuntime();
    const handle = await runtime.launch({});
    const sandbox = await createDeepAgentsSandbox({ runtime, handle });
    runtime.fail({ method: "exec", error: providerDown });
    const failed = await expectSandboxError(() => sandbox.execute("echo hi"), "COMMAND_FAILED");
    assert.equal(failed.message, "Command execution failed: 503 from provider");
    assert.ok(SandportError.hasCode(failed.cause, "PROVIDER_UNAVAILABLE"));
    // BaseSandbox's tools built on execute reject alike.
    runtime.fail({ method: "exec", error: providerDown });
    await expectSandboxError(() => sandbox.read("/workspace/a.txt"), "COMMAND_FAILED");
    // A call that ran past its deadline is COMMAND_TIMEOUT.
    const deadline = new SandportError({ code: "DEADLINE_EXCEEDED", provider: "recording", message: "deadline" });
    runtime.fail({ method: "exec", error: () => deadline });
    const late = await expectSandboxError(() => sandbox.execute("sleep 1"), "COMMAND_TIMEOUT");
    assert.equal(late.message, "Command timed out: sleep 1");
    assert.equal(late.cause, deadline);
  });

  test("a sandbox destroyed under the instance: execute is COMMAND_FAILED with NOT_FOUND behind it", async () => {
    const handle = await local.runtime.launch({});
    const sandbox = await createDeepAgentsSandbox({ runtime: local.runtime, handle });
    await local.runtime.destroy(handle);
    const failed = await expectSandboxError(() => sandbox.execute("echo hi"), "COMMAND_FAILED");
    assert.ok(SandportError.hasCode(failed.cause, "NOT_FOUND"), String(failed.cause));
  });

  test("a working directory: execute runs there, relative file paths resolve against it", {
    skip: namespacesOnly,
  }, async () => {
    const handle = await local.runtime.launch({});
    try {
      const sandbox = await createDeepAgentsSandbox({ runtime: local.runtime, handle, workingDirectory: "app" });
      assert.deepEqual(await sandbox.uploadFiles([["notes.txt", bytes("in app")]]), [
        { path: "notes.txt", error: null },
      ]);
      const root = local.runtime.workspaceRoot;
      assert.equal((await sandbox.execute("pwd; cat notes.txt")).output, `${root}/app\nin app`);
      const [download] = await sandbox.downloadFiles([`${root}/app/notes.txt`, "notes.txt"]);
      assert.equal(new TextDecoder().decode(download?.content ?? new Uint8Array()), "in app");
      assert.equal((await sandbox.downloadFiles(["../app/notes.txt"]))[0]?.error, null);
    } finally {
      await local.runtime.destroy(handle);
    }
  });
});
