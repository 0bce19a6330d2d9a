// The lifecycle deepagents' own sandboxes (Daytona, Modal, Deno) have: a
// constructed instance is not running and launches nothing; initialize()
// launches and writes the initial files; isRunning; close() destroys; the
// framework's SandboxError codes for each way it fails. On a real LocalRuntime,
// and a RecordingRuntime where a failure must be scripted.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { localTestRuntime, providerDown, RecordingRuntime } from "@sandport/testkit/fakes";
import { expectSandboxError } from "./expect-sandbox-error.fixture.js";
import { createDeepAgentsSandbox, loadDeepAgentsSandboxClass } from "./index.js";

const local = await localTestRuntime("langchain-lifecycle");
after(() => local.cleanup());
const Sandbox = await loadDeepAgentsSandboxClass();

/** The sandboxes of the local runtime carrying `labels`. */
const labelled = (labels: Record<string, string>) => local.runtime.findByLabels(labels);

describe("two-step initialization", () => {
  test("new launches nothing and is not running; initialize launches; close destroys", async () => {
    const labels = { test: "two-step" };
    const sandbox = new Sandbox({ runtime: local.runtime, launch: { labels } });
    assert.equal(sandbox.isRunning, false);
    assert.match(sandbox.id, /^local:uninitialized-/);
    assert.deepEqual(await labelled(labels), []);
    await expectSandboxError(() => sandbox.execute("echo hi"), "NOT_INITIALIZED");
    await expectSandboxError(() => sandbox.uploadFiles([["a.txt", new Uint8Array()]]), "NOT_INITIALIZED");
    await expectSandboxError(() => sandbox.downloadFiles(["a.txt"]), "NOT_INITIALIZED");
    await expectSandboxError(() => sandbox.handle, "NOT_INITIALIZED");

    await sandbox.initialize();
    assert.equal(sandbox.isRunning, true);
    const [launched] = await labelled(labels);
    assert.ok(launched);
    assert.equal(sandbox.handle.id, launched.id);
    assert.equal(sandbox.id, `local:${launched.id}`);
    const result = await sandbox.execute("echo hi");
    assert.deepEqual([result.exitCode, result.output.trim()], [0, "hi"]);
    await expectSandboxError(() => sandbox.initialize(), "ALREADY_INITIALIZED");

    await sandbox.close();
    assert.equal(sandbox.isRunning, false);
    assert.equal(sandbox.id, `local:${launched.id}`, "the id outlives the sandbox, as the framework's do");
    assert.equal(await local.runtime.getById(launched.id), undefined);
    await expectSandboxError(() => sandbox.execute("echo hi"), "NOT_INITIALIZED");
    await sandbox.close();
  });

  test("a second initialize while the first is launching is ALREADY_INITIALIZED, and one sandbox is launched", async () => {
    const labels = { test: "initialize-twice" };
    const sandbox = new Sandbox({ runtime: local.runtime, launch: { labels } });
    const first = sandbox.initialize();
    await expectSandboxError(() => sandbox.initialize(), "ALREADY_INITIALIZED");
    await first;
    assert.equal((await labelled(labels)).length, 1);
    await sandbox.close();
  });

  test("close during initialize waits for the launch and destroys what it launched", async () => {
    const labels = { test: "close-while-launching" };
    const sandbox = new Sandbox({ runtime: local.runtime, launch: { labels } });
    const initializing = sandbox.initialize();
    await sandbox.close();
    await initializing;
    assert.equal(sandbox.isRunning, false);
    assert.deepEqual(await labelled(labels), []);
  });

  test("a sandbox you hold is running from construction, and close() destroys it", async () => {
    const handle = await local.runtime.launch({});
    const sandbox = await createDeepAgentsSandbox({ runtime: local.runtime, handle });
    assert.equal(sandbox.isRunning, true);
    await expectSandboxError(() => sandbox.initialize(), "ALREADY_INITIALIZED");
    await sandbox.close();
    assert.equal(await local.runtime.getById(handle.id), undefined);
  });
});

describe("create with initial files", () => {
  test("create and createDeepAgentsSandbox without a handle launch and write the files (text and bytes, nested, relative to the working directory)", async () => {
    for (const build of [Sandbox.create, createDeepAgentsSandbox]) {
      const sandbox = await build({
        runtime: local.runtime,
        workingDirectory: "app",
        initialFiles: {
          "nested/dir/file.txt": "Nested content",
          [`${local.runtime.workspaceRoot}/top.txt`]: "at the root",
          "empty.txt": "",
          "bytes.bin": new Uint8Array([104, 105]),
        },
      });
      try {
        assert.equal(sandbox.isRunning, true);
        const result = await sandbox.execute("cat nested/dir/file.txt ../top.txt bytes.bin && wc -c < empty.txt");
        assert.deepEqual([result.exitCode, result.output], [0, "Nested contentat the roothi0\n"]);
      } finally {
        await sandbox.close();
      }
    }
  });

  test("an initial file outside the workspace, or beside a handle, is INVALID_REQUEST before anything is launched", async () => {
    const runtime = new RecordingRuntime();
    await expectCode(
      () => new Sandbox({ runtime, initialFiles: { "/etc/passwd": "x" } }),
      "INVALID_REQUEST",
      "an initial file outside the workspace",
    );
    await expectCode(
      () => Sandbox.create({ runtime, initialFiles: { "a.txt": 5 as never } }),
      "INVALID_REQUEST",
      "an initial file that is not text or bytes",
    );
    const handle = { id: "held", provider: "recording", labels: {} };
    await expectCode(
      () => createDeepAgentsSandbox({ runtime, handle, initialFiles: { "a.txt": "x" } }),
      "INVALID_REQUEST",
      "initial files beside a handle",
    );
    assert.deepEqual(runtime.calls, []);
  });

  test("a failed launch is SANDBOX_CREATION_FAILED with the Sandport error as cause, and the instance can initialize again", async () => {
    const runtime = new RecordingRuntime().fail({ method: "launch", error: providerDown });
    const sandbox = new Sandbox({ runtime });
    const error = await expectSandboxError(() => sandbox.initialize(), "SANDBOX_CREATION_FAILED");
    assert.ok(SandportError.hasCode(error.cause, "PROVIDER_UNAVAILABLE"));
    assert.equal(sandbox.isRunning, false);
    await sandbox.initialize();
    assert.equal(sandbox.isRunning, true);
  });

  test("a launch.network the runtime cannot enforce is NOT_SUPPORTED, the runtime's refusal as cause, nothing launched", async () => {
    // Under isolation "none" commands always have the host's network: the runtime enforces no policy.
    const plain = await localTestRuntime("langchain-network-none", { isolation: "none" });
    try {
      const sandbox = new Sandbox({ runtime: plain.runtime, launch: { network: { allow: ["api.example.com"] } } });
      const error = await expectSandboxError(() => sandbox.initialize(), "NOT_SUPPORTED");
      assert.ok(SandportError.hasCode(error.cause, "UNSUPPORTED"));
      assert.equal(sandbox.isRunning, false);
      assert.deepEqual(await plain.runtime.findByLabels({}), [], "no sandbox was created");
    } finally {
      await plain.cleanup();
    }
  });

  test("initial files that cannot be written are FILE_OPERATION_FAILED, and the sandbox launched for them is destroyed", async () => {
    // Twice: the batch, then the file alone (how uploadFiles tells which file failed).
    const runtime = new RecordingRuntime().fail({ method: "writeFiles", error: providerDown, times: 2 });
    const sandbox = new Sandbox({ runtime, initialFiles: { "a.txt": "x" } });
    const error = await expectSandboxError(() => sandbox.initialize(), "FILE_OPERATION_FAILED");
    assert.ok(SandportError.hasCode(error.cause, "PROVIDER_UNAVAILABLE"));
    assert.equal(sandbox.isRunning, false);
    assert.deepEqual(
      runtime.calls.map(({ method }) => method),
      ["launch", "writeFiles", "writeFiles", "destroy"],
    );
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("if the sandbox cannot be destroyed after its initial files failed, it stays running for close() to retry", async () => {
    const runtime = new RecordingRuntime()
      .fail({ method: "writeFiles", error: providerDown, times: 2 })
      .fail({ method: "destroy", error: providerDown });
    const sandbox = new Sandbox({ runtime, initialFiles: { "a.txt": "x" } });
    const error = await expectSandboxError(() => sandbox.initialize(), "FILE_OPERATION_FAILED");
    assert.match(error.message, /destroying the sandbox failed too/);
    assert.ok(error.cause instanceof AggregateError);
    assert.equal(sandbox.isRunning, true);
    await sandbox.close();
    assert.equal(sandbox.isRunning, false);
    assert.equal(runtime.sandboxes.size, 0);
  });
});
