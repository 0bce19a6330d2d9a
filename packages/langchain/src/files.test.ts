// uploadFiles / downloadFiles report per file with deepagents' error values;
// failures that are not about a path propagate. execute maps results; both
// follow the working directory.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { SandportError, TIMED_OUT_EXIT_STATUS } from "@sandport/core";
import {
  localTestRuntime,
  namespacesSkipReason,
  providerDown,
  RecordingRuntime,
  withoutMethods,
} from "@sandport/testkit/fakes";
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
  test("stdout, marked stderr, exit codes; a command past its time limit exits 124", async () => {
    const handle = await local.runtime.launch({});
    try {
      const sandbox = await createDeepAgentsSandbox({ runtime: local.runtime, handle, commandTimeoutMs: 300 });
      assert.deepEqual(await sandbox.execute("echo out; echo err >&2"), {
        output: "out\n\n[stderr] err",
        exitCode: 0,
        truncated: false,
      });
      assert.deepEqual(await sandbox.execute("true"), { output: "<no output>", exitCode: 0, truncated: false });
      const slow = await sandbox.execute("sleep 5");
      assert.equal(slow.exitCode, TIMED_OUT_EXIT_STATUS);
      assert.match(slow.output, /timed out after[\s\S]*Exit code: 124$/);
    } finally {
      await local.runtime.destroy(handle);
    }
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
