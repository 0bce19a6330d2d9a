// The provider over a real LocalRuntime: create honours the deterministic id, resume and destroy find the
// sandbox by it, and what the runtime lacks is TanStack AI's unsupported error, never a silent fallback.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type LocalTestRuntime, localTestRuntime, RecordingRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { UnsupportedCapabilityError } from "@tanstack/ai-sandbox";
import { SANDBOX_ID_LABEL } from "./options.js";
import { sandportSandboxProvider } from "./provider.js";

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("tanstack-provider");
});
after(() => local.cleanup());

describe("sandportSandboxProvider", () => {
  test("create labels the sandbox with the given id and returns it as the handle's id; resume finds it; destroy removes it", async () => {
    const provider = sandportSandboxProvider({ runtime: local.runtime });
    assert.equal(provider.name, "sandport-local");
    const created = await provider.create({ id: "thread-key-1" });
    assert.equal(created.id, "thread-key-1");
    assert.equal(created.provider, "sandport-local");
    assert.equal(created.workspaceRoot, local.runtime.workspaceRoot);
    const [labelled] = await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: "thread-key-1" });
    assert.ok(labelled, "the sandbox carries the id label");
    await created.fs.write("/workspace/note.txt", "kept");
    const resumed = await provider.resume({ id: "thread-key-1" });
    assert.ok(resumed);
    assert.equal(resumed.id, "thread-key-1");
    assert.equal(await resumed.fs.read("note.txt"), "kept");
    await provider.destroy({ id: "thread-key-1" });
    assert.equal(await local.runtime.getById(labelled.id), undefined);
    assert.equal(await provider.resume({ id: "thread-key-1" }), null);
    await provider.destroy({ id: "thread-key-1" });
  });

  test("create with an id whose sandbox still exists adopts it instead of launching a second", async () => {
    const provider = sandportSandboxProvider({ runtime: local.runtime });
    const first = await provider.create({ id: "adopted-key" });
    await first.fs.write("mark.txt", "first");
    const again = await provider.create({ id: "adopted-key" });
    assert.equal(again.id, "adopted-key");
    assert.equal(await again.fs.read("mark.txt"), "first");
    assert.equal((await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: "adopted-key" })).length, 1);
    await again.destroy();
  });

  test("create without an id mints one the sandbox is labelled with; the handle's destroy removes the sandbox", async () => {
    const provider = sandportSandboxProvider({ runtime: local.runtime });
    const created = await provider.create({});
    assert.match(created.id, /^[0-9a-f-]{36}$/);
    assert.ok(await provider.resume({ id: created.id }));
    await created.destroy();
    assert.equal(await provider.resume({ id: created.id }), null);
  });

  test("create's env is merged over the launch env and reaches every command", async () => {
    const provider = sandportSandboxProvider({
      runtime: local.runtime,
      launch: { env: { BASE: "launch", WHO: "launch" }, labels: { team: "a" } },
    });
    const created = await provider.create({ id: "env-key", env: { WHO: "create" } });
    try {
      const result = await created.process.exec('echo "$BASE $WHO"');
      assert.deepEqual(result, { stdout: "launch create\n", stderr: "", exitCode: 0 });
      const [found] = await local.runtime.findByLabels({ team: "a", [SANDBOX_ID_LABEL]: "env-key" });
      assert.ok(found, "launch labels are kept beside the id label");
    } finally {
      await created.destroy();
    }
  });

  test("on a runtime without label search, the handle's id is the Sandport id and resume uses getById", async () => {
    const runtime = withoutMethods(local.runtime, ["findByLabels"]);
    const provider = sandportSandboxProvider({ runtime });
    const created = await provider.create({ id: "ignored-key" });
    const [labelled] = await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: "ignored-key" });
    assert.equal(created.id, labelled?.id);
    assert.equal((await provider.resume({ id: created.id }))?.id, created.id);
    await provider.destroy({ id: created.id });
    assert.equal(await provider.resume({ id: created.id }), null);
  });

  test("on a runtime that can find no sandbox again, resume and destroy are TanStack AI's unsupported error", async () => {
    const runtime = withoutMethods(new RecordingRuntime(), ["findByLabels", "getById"]);
    const provider = sandportSandboxProvider({ runtime });
    await assert.rejects(provider.resume({ id: "x" }), (error) => {
      assert.ok(error instanceof UnsupportedCapabilityError);
      assert.equal(error.capability, "resume");
      assert.equal(error.provider, "sandport-recording");
      return true;
    });
    await assert.rejects(provider.destroy({ id: "x" }), UnsupportedCapabilityError);
    assert.deepEqual(runtime.calls, []);
  });

  test("a local workspace source is refused before anything is launched", async () => {
    const runtime = new RecordingRuntime();
    const provider = sandportSandboxProvider({ runtime });
    await assert.rejects(
      provider.create({ id: "k", workspace: { source: { type: "local", path: "/home/me/repo" } } }),
      (error) => error instanceof UnsupportedCapabilityError && error.capability === "workspace.source local",
    );
    assert.deepEqual(runtime.calls, []);
  });

  test("an aborted signal stops create before the sandbox is launched", async () => {
    const runtime = new RecordingRuntime();
    const provider = sandportSandboxProvider({ runtime });
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await assert.rejects(provider.create({ id: "k", signal: controller.signal }), { code: "ABORTED" });
    assert.equal(runtime.sandboxes.size, 0);
  });
});
