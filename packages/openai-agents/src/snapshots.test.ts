// Workspace snapshots through the framework's own client API over a real LocalRuntime: a sandportSnapshot()
// session's serialised state carries a runtime snapshot, and resuming it once its sandbox is gone launches a
// new sandbox from it; the framework's host-directory and archive-store specs, ephemeral manifest entries and a
// runtime without snapshots are SandboxUnsupportedFeatureError before anything is launched.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import {
  file,
  InMemoryRemoteSnapshotStore,
  Manifest,
  NoopSnapshotSpec,
  SandboxUnsupportedFeatureError,
} from "@openai/agents-core/sandbox";
import { localTestRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { SandportSandboxClient, SNAPSHOT_SANDBOX_LABEL, sandportSnapshot } from "./index.js";

const local = await localTestRuntime("openai-snapshots");
after(() => local.cleanup());

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("sandportSnapshot()", () => {
  test("serialising takes a snapshot; resuming once the sandbox is gone restores the workspace as taken into a new one", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime });
    const session = await client.create({
      manifest: new Manifest({ entries: { "notes.txt": file({ content: "from the manifest" }) } }),
      snapshot: sandportSnapshot({ labels: { team: "a" } }),
    });
    const original = session.state.sandbox.id;
    await session.exec({ cmd: "echo taken > state.txt" });
    // As RunState stores it: through JSON.
    const record = JSON.parse(JSON.stringify(await client.serializeSessionState(session.state)));
    assert.equal(record.snapshot.type, "sandport");
    const [taken] = await local.runtime.listSnapshots({ team: "a", [SNAPSHOT_SANDBOX_LABEL]: original });
    assert.equal(taken?.id, record.snapshot.id, "the snapshot carries the spec's labels and the sandbox's id");
    await session.exec({ cmd: "echo changed > state.txt && echo later > later.txt" });
    await session.close();
    assert.equal(await local.runtime.getById(original), undefined, "close destroyed the sandbox");

    const resumed = await client.resume(await client.deserializeSessionState(record));
    try {
      assert.notEqual(resumed.state.sandbox.id, original);
      assert.equal(text(await resumed.readFile({ path: "state.txt" })), "taken\n");
      assert.equal(text(await resumed.readFile({ path: "notes.txt" })), "from the manifest");
      assert.equal(await resumed.pathExists("later.txt"), false);

      // Serialising the restored session replaces the snapshot: the session keeps one.
      const again = await client.serializeSessionState(resumed.state);
      const kept = await local.runtime.listSnapshots({ team: "a" });
      assert.deepEqual(
        kept.map((snapshot) => snapshot.id),
        [(again.snapshot as { id: string }).id],
      );
      assert.equal(kept[0]?.sourceId, resumed.state.sandbox.id);
    } finally {
      await resumed.close();
      for (const snapshot of await local.runtime.listSnapshots({ team: "a" }))
        await local.runtime.deleteSnapshot(snapshot);
    }
  });

  test("a sandbox still there is resumed as it is, not restored", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime });
    const session = await client.create({
      manifest: new Manifest({}),
      snapshot: sandportSnapshot({ labels: { team: "b" } }),
    });
    try {
      const record = await client.serializeSessionState(session.state);
      await session.exec({ cmd: "echo after > after.txt" });
      const resumed = await client.resume(await client.deserializeSessionState(record));
      assert.equal(resumed.state.sandbox.id, session.state.sandbox.id);
      assert.equal(text(await resumed.readFile({ path: "after.txt" })), "after\n");
    } finally {
      await session.close();
      for (const snapshot of await local.runtime.listSnapshots({ team: "b" }))
        await local.runtime.deleteSnapshot(snapshot);
    }
  });

  test("the framework's noop spec is no snapshots: the session is created and its state carries none", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime });
    const session = await client.create({ manifest: new Manifest({}), snapshot: new NoopSnapshotSpec() });
    try {
      const record = await client.serializeSessionState(session.state);
      assert.equal(record.snapshot, undefined);
    } finally {
      await session.close();
    }
  });
});

describe("refused before anything is launched", () => {
  const refusedFeature = (pattern: RegExp) => (error: unknown) => {
    assert.ok(error instanceof SandboxUnsupportedFeatureError, String(error));
    assert.equal(error.details?.feature, "snapshot");
    assert.match(error.message, pattern);
    return true;
  };

  test("a runtime without snapshots", async () => {
    const runtime = withoutMethods(local.runtime, ["snapshot", "listSnapshots", "deleteSnapshot"]);
    const client = new SandportSandboxClient({ runtime, launch: { labels: { probe: "no-snapshots" } } });
    await assert.rejects(
      client.create({ manifest: new Manifest({}), snapshot: sandportSnapshot() }),
      refusedFeature(/has no snapshots/),
    );
    assert.deepEqual(await local.runtime.findByLabels({ probe: "no-snapshots" }), []);
  });

  test("the framework's local and remote specs, which keep the workspace on the host or in an archive store", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime, launch: { labels: { probe: "host-specs" } } });
    for (const snapshot of [
      { type: "local", baseDir: "/tmp/snapshots" },
      { type: "remote", store: new InMemoryRemoteSnapshotStore() },
    ]) {
      await assert.rejects(
        client.create({ manifest: new Manifest({}), snapshot }),
        refusedFeature(/use sandportSnapshot\(\)/),
      );
    }
    assert.deepEqual(await local.runtime.findByLabels({ probe: "host-specs" }), []);
  });

  test("a manifest with ephemeral entries, which a runtime snapshot would keep", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime, launch: { labels: { probe: "ephemeral" } } });
    const manifest = new Manifest({ entries: { "token.txt": file({ content: "secret", ephemeral: true }) } });
    await assert.rejects(client.create({ manifest, snapshot: sandportSnapshot() }), refusedFeature(/token\.txt/));
    assert.deepEqual(await local.runtime.findByLabels({ probe: "ephemeral" }), []);
  });

  test("reserved labels in the spec are INVALID_REQUEST", () => {
    assert.throws(() => sandportSnapshot({ labels: { "sandport.owner": "x" } }), { code: "INVALID_REQUEST" });
  });
});
