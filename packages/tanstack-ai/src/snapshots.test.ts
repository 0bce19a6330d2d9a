// Snapshots through TanStack AI's own API over a real LocalRuntime: the handle's snapshot, the provider's
// restoreSnapshot, fork, and defineSandbox restoring the after-setup snapshot once the sandbox is gone; a
// runtime without the port's snapshots or fork is TanStack AI's unsupported error with nothing taken or launched; a runtime
// with its own fork forks through it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type LaunchSpec, type OpOptions, SandportError } from "@sandport/core";
import { type LocalTestRuntime, localTestRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { defineSandbox, defineWorkspace, InMemorySandboxStore, UnsupportedCapabilityError } from "@tanstack/ai-sandbox";
import { SANDBOX_ID_LABEL } from "./options.js";
import { sandportSandboxProvider } from "./provider.js";
import { SNAPSHOT_LABEL } from "./snapshots.js";

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("tanstack-snapshots");
});
after(() => local.cleanup());

describe("on a runtime with snapshots", () => {
  test("snapshot then restoreSnapshot starts a new sandbox with the files as taken; the source is untouched", async () => {
    const provider = sandportSandboxProvider({ runtime: local.runtime, launch: { env: { WHO: "launch" } } });
    assert.deepEqual([provider.capabilities().snapshots, provider.capabilities().fork], [true, true]);
    assert.equal(typeof provider.restoreSnapshot, "function");
    const source = await provider.create({ id: "snap-source" });
    try {
      await source.fs.write("/workspace/app/state.txt", "taken");
      const ref = await (source.snapshot?.("checkpoint") ?? assert.fail("snapshot is present"));
      assert.equal(ref.label, "checkpoint");
      const [listed] = await local.runtime.listSnapshots({
        [SANDBOX_ID_LABEL]: "snap-source",
        [SNAPSHOT_LABEL]: "checkpoint",
      });
      assert.equal(listed?.id, ref.id, "the port snapshot carries the handle's id and the label");
      await source.fs.write("/workspace/app/state.txt", "changed after");
      await source.fs.write("/workspace/later.txt", "later");

      const restored = await (provider.restoreSnapshot?.({ snapshotId: ref.id, env: { EXTRA: "restore" } }) ??
        assert.fail("restoreSnapshot is present"));
      try {
        assert.notEqual(restored.id, source.id);
        assert.ok(await provider.resume({ id: restored.id }), "the restored sandbox is found again by its id");
        assert.equal(await restored.fs.read("/workspace/app/state.txt"), "taken");
        assert.equal(await restored.fs.exists("/workspace/later.txt"), false);
        assert.equal((await restored.process.exec('echo "$WHO $EXTRA"')).stdout, "launch restore\n");
        await restored.fs.write("/workspace/app/state.txt", "restored's own");
        assert.equal(await source.fs.read("/workspace/app/state.txt"), "changed after");
      } finally {
        await restored.destroy();
      }
      await local.runtime.deleteSnapshot(ref.id);
    } finally {
      await source.destroy();
    }
  });

  for (const [how, without] of [
    ["the runtime's own fork", [] as const],
    ["a snapshot and a launch from it", ["fork"] as const],
  ] as const) {
    test(`fork (${how}) is a new sandbox from the state now, with the env overlay, and leaves no snapshot behind`, async () => {
      const provider = sandportSandboxProvider({ runtime: withoutMethods(local.runtime, [...without]) });
      const source = await provider.create({ id: "fork-source", env: { SECRET: "from-create" } });
      try {
        await source.fs.write("/workspace/shared.txt", "before fork");
        await source.env.set({ OVERLAY: "set" });
        const before = (await local.runtime.listSnapshots({})).length;
        const forked = await (source.fork?.() ?? assert.fail("fork is present"));
        try {
          assert.notEqual(forked.id, source.id);
          assert.ok(await provider.resume({ id: forked.id }));
          assert.equal(await forked.fs.read("/workspace/shared.txt"), "before fork");
          assert.equal((await forked.process.exec('echo "$SECRET $OVERLAY"')).stdout, "from-create set\n");
          await forked.fs.write("/workspace/shared.txt", "fork's own");
          assert.equal(await source.fs.read("/workspace/shared.txt"), "before fork");
          assert.equal((await local.runtime.listSnapshots({})).length, before, "the fork's snapshot is deleted");
          assert.ok(await provider.resume({ id: source.id }), "the source is still found by its own id");
          const [byId] = await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: source.id });
          assert.equal(
            (await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: source.id })).length,
            1,
            `only the source carries its id (found ${byId?.id})`,
          );
        } finally {
          await forked.destroy();
        }
      } finally {
        await source.destroy();
      }
    });
  }

  test("a runtime with its own fork and no snapshots forks through it, taking no snapshot", async () => {
    const runtime = withoutMethods(local.runtime, ["snapshot", "listSnapshots", "deleteSnapshot"]);
    const provider = sandportSandboxProvider({ runtime });
    assert.deepEqual([provider.capabilities().snapshots, provider.capabilities().fork], [false, true]);
    const source = await provider.create({ id: "native-fork-source" });
    try {
      await source.fs.write("/workspace/state.txt", "source");
      const before = (await local.runtime.listSnapshots({})).length;
      const forked = await (source.fork?.() ?? assert.fail("fork is present"));
      try {
        assert.equal(await forked.fs.read("/workspace/state.txt"), "source");
        assert.ok(await provider.resume({ id: forked.id }), "the fork is found again by its new id");
        assert.equal((await local.runtime.listSnapshots({})).length, before, "no snapshot was taken");
      } finally {
        await forked.destroy();
      }
    } finally {
      await source.destroy();
    }
  });

  test("a fork whose launch fails deletes its snapshot and passes the launch's error on", async () => {
    // The runtime as it is, except that a launch from a snapshot fails (a provider out of capacity, say).
    // Without its own fork, so that the fork goes through a snapshot and a launch.
    const refusing = new Proxy(local.runtime, {
      get(target, key) {
        if (key === "fork") return undefined;
        if (key === "launch") {
          return (spec: LaunchSpec, op?: OpOptions) =>
            spec.from === undefined
              ? target.launch(spec, op)
              : Promise.reject(new SandportError({ code: "RATE_LIMITED", provider: "local", message: "no capacity" }));
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const source = await sandportSandboxProvider({ runtime: refusing }).create({ id: "fork-refused" });
    try {
      const before = (await local.runtime.listSnapshots({})).length;
      await assert.rejects(source.fork?.() ?? Promise.resolve(), { code: "RATE_LIMITED" });
      assert.equal((await local.runtime.listSnapshots({})).length, before, "the fork's snapshot is deleted");
    } finally {
      await source.destroy();
    }
  });

  test("defineSandbox snapshots after setup and, once the sandbox is gone, restores it without running setup again", async () => {
    const provider = sandportSandboxProvider({ runtime: local.runtime });
    const definition = defineSandbox({
      id: "restoring",
      provider,
      workspace: defineWorkspace({ source: { type: "none" }, setup: ["echo ran >> setup-runs.txt"] }),
    });
    const store = new InMemorySandboxStore();
    const context = { threadId: "thread-restore", runId: "run-1", store };
    const first = await definition.ensure(context);
    const record = await store.get(definition.key(context));
    assert.ok(record?.latestSnapshotId, "TanStack AI recorded the after-setup snapshot");
    await first.fs.write("/workspace/after-snapshot.txt", "not in the snapshot");
    // The sandbox is lost behind TanStack AI's back (expired, say): ensure cannot resume it.
    const [lost] = await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: first.id });
    assert.ok(lost);
    await local.runtime.destroy(lost);

    const second = await definition.ensure({ ...context, runId: "run-2" });
    try {
      assert.notEqual(second.id, first.id);
      assert.equal(await second.fs.read("/workspace/setup-runs.txt"), "ran\n", "setup ran once, before the snapshot");
      assert.equal(await second.fs.exists("/workspace/after-snapshot.txt"), false);
      assert.equal((await store.get(definition.key(context)))?.providerSandboxId, second.id);
    } finally {
      await definition.destroy(context);
      await local.runtime.deleteSnapshot(record.latestSnapshotId);
    }
  });

  test("restoreSnapshot of a snapshot that does not exist is NOT_FOUND, nothing launched", async () => {
    const provider = sandportSandboxProvider({ runtime: local.runtime, launch: { labels: { probe: "missing" } } });
    await assert.rejects(provider.restoreSnapshot?.({ snapshotId: "snap-00000000000000000000" }) ?? Promise.resolve(), {
      code: "NOT_FOUND",
    });
    assert.deepEqual(await local.runtime.findByLabels({ probe: "missing" }), []);
  });
});

describe("on a runtime without snapshots or fork", () => {
  test("the flags are false, there is no restoreSnapshot, and snapshot and fork are TanStack AI's unsupported error", async () => {
    const runtime = withoutMethods(local.runtime, ["snapshot", "listSnapshots", "deleteSnapshot", "fork"]);
    const provider = sandportSandboxProvider({ runtime, launch: { labels: { probe: "no-snapshots" } } });
    assert.deepEqual([provider.capabilities().snapshots, provider.capabilities().fork], [false, false]);
    assert.equal(provider.restoreSnapshot, undefined);
    const handle = await provider.create({ id: "no-snapshots" });
    try {
      const snapshotsBefore = (await local.runtime.listSnapshots({})).length;
      const unsupported = (capability: string) => (error: unknown) => {
        assert.ok(error instanceof UnsupportedCapabilityError);
        assert.equal(error.capability, capability);
        assert.equal(error.provider, "sandport-local");
        return true;
      };
      await assert.rejects(handle.snapshot?.("x") ?? Promise.resolve(), unsupported("snapshots"));
      await assert.rejects(handle.fork?.() ?? Promise.resolve(), unsupported("fork"));
      assert.equal((await local.runtime.findByLabels({ probe: "no-snapshots" })).length, 1, "nothing launched");
      assert.equal((await local.runtime.listSnapshots({})).length, snapshotsBefore, "nothing taken");
    } finally {
      await handle.destroy();
    }
  });
});
