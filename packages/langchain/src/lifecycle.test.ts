// fromId and deleteAll, as deepagents' own sandboxes have them: through the
// runtime's getById and findByLabels, refused with the framework's
// NOT_SUPPORTED (before any call) where the runtime has neither.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { localTestRuntime, providerDown, RecordingRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { expectSandboxError } from "./expect-sandbox-error.fixture.js";
import { loadDeepAgentsSandboxClass } from "./index.js";

const local = await localTestRuntime("langchain-by-id");
after(() => local.cleanup());
const Sandbox = await loadDeepAgentsSandboxClass();

describe("fromId", () => {
  test("attaches to a running sandbox by the runtime's id or the bridge's id; absent is SANDBOX_NOT_FOUND", async () => {
    const created = await Sandbox.create({ runtime: local.runtime, initialFiles: { "note.txt": "kept" } });
    const sandboxId = created.handle.id;
    try {
      for (const id of [sandboxId, created.id]) {
        const attached = await Sandbox.fromId(id, { runtime: local.runtime });
        assert.equal(attached.isRunning, true);
        assert.equal(attached.id, created.id);
        assert.equal((await attached.execute("cat note.txt")).output, "kept");
      }
    } finally {
      await created.close();
    }
    await expectSandboxError(() => Sandbox.fromId(sandboxId, { runtime: local.runtime }), "SANDBOX_NOT_FOUND");
  });

  test("a runtime without getById is NOT_SUPPORTED before any call; a provider failure rejects with its Sandport error", async () => {
    const runtime = new RecordingRuntime();
    await expectSandboxError(
      () => Sandbox.fromId("rec-1", { runtime: withoutMethods(runtime, ["getById"]) }),
      "NOT_SUPPORTED",
    );
    assert.deepEqual(runtime.calls, []);
    runtime.fail({ method: "getById", error: providerDown });
    await expectCode(() => Sandbox.fromId("rec-1", { runtime }), "PROVIDER_UNAVAILABLE");
  });
});

describe("deleteAll", () => {
  test("destroys every sandbox with all the labels, and only those, resolving to how many", async () => {
    const run = { purpose: "deleteAll", run: "1" };
    const mine = await Promise.all([
      Sandbox.create({ runtime: local.runtime, launch: { labels: run } }),
      Sandbox.create({ runtime: local.runtime, launch: { labels: { ...run, extra: "yes" } } }),
    ]);
    const other = await Sandbox.create({ runtime: local.runtime, launch: { labels: { purpose: "deleteAll" } } });
    try {
      assert.equal(await Sandbox.deleteAll(run, { runtime: local.runtime }), 2);
      for (const sandbox of mine) assert.equal(await local.runtime.getById(sandbox.handle.id), undefined);
      assert.ok(await local.runtime.getById(other.handle.id));
      assert.equal(await Sandbox.deleteAll(run, { runtime: local.runtime }), 0);
    } finally {
      await other.close();
    }
  });

  test("a runtime without findByLabels is NOT_SUPPORTED, and bad labels INVALID_REQUEST, before any call", async () => {
    const runtime = new RecordingRuntime();
    await expectSandboxError(
      () => Sandbox.deleteAll({ a: "b" }, { runtime: withoutMethods(runtime, ["findByLabels"]) }),
      "NOT_SUPPORTED",
    );
    await expectCode(() => Sandbox.deleteAll("a=b" as never, { runtime }), "INVALID_REQUEST");
    assert.deepEqual(runtime.calls, []);
  });

  test("a destroy that fails does not stop the others; the call then rejects with every failure", async () => {
    const runtime = new RecordingRuntime().fail({ method: "destroy", error: providerDown });
    for (let index = 0; index < 3; index += 1) await runtime.launch({ labels: { batch: "x" } });
    const failed = await Sandbox.deleteAll({ batch: "x" }, { runtime }).then(
      () => assert.fail("deleteAll resolved though a destroy failed"),
      (error: unknown) => error,
    );
    assert.ok(failed instanceof AggregateError, String(failed));
    assert.equal(failed.errors.length, 1);
    assert.ok(SandportError.hasCode(failed.errors[0], "PROVIDER_UNAVAILABLE"));
    assert.equal(runtime.calls.filter(({ method }) => method === "destroy").length, 3);
    assert.equal(runtime.sandboxes.size, 1);
  });
});
