// Snapshots: a copy of a workspace that new sandboxes start from, owned like sandboxes, and never a way out of the workspace.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { resolveCapabilities, SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("snapshots");
after(() => root.remove());

const isCode = (code: string) => (error: unknown) => SandportError.hasCode(error, code as never);

describe("snapshots under every isolation", () => {
  for (const isolation of ["none", "namespaces"] as const) {
    const skip = isolation === "namespaces" ? skipNamespaces : undefined;
    const runtime = new LocalRuntime({ root: root.path, isolation, owner: `snapshots-${isolation}` });

    test(`${isolation}: a launch from a snapshot starts with the files as they were, modes and symlinks kept`, {
      skip,
    }, async () => {
      assert.equal(resolveCapabilities(runtime).snapshots, true);
      const source = await runtime.launch();
      try {
        await runtime.writeFiles(source, [
          { path: "src/app.py", content: "print('v1')\n" },
          { path: "bin/run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
          { path: "data.bin", content: new Uint8Array([0, 255, 10, 13]) },
        ]);
        await runtime.exec(source, { shell: "ln -s src/app.py link.py && mkdir -p empty/dir && chmod 700 empty" });
        const snapshot = await runtime.snapshot(source, { labels: { step: "prepared" } });
        assert.equal(snapshot.provider, "local");
        assert.equal(snapshot.contents, "filesystem");
        assert.equal(snapshot.sourceId, source.id);
        assert.deepEqual(snapshot.labels, { step: "prepared" });
        await runtime.writeFiles(source, [{ path: "src/app.py", content: "print('v2')\n" }]);

        const restored = await runtime.launch({ from: snapshot });
        try {
          assert.equal(new TextDecoder().decode(await runtime.readFile(restored, "src/app.py")), "print('v1')\n");
          assert.deepEqual([...(await runtime.readFile(restored, "data.bin"))], [0, 255, 10, 13]);
          const listing = await runtime.exec(restored, {
            shell: "./bin/run.sh; readlink link.py; stat -c '%a %n' bin/run.sh empty; ls empty",
          });
          assert.equal(listing.stdout, "ran\nsrc/app.py\n755 bin/run.sh\n700 empty\ndir\n", listing.stderr);
          // The restored files are the sandbox's own: its commands change them.
          const write = await runtime.exec(restored, { shell: "echo more >> src/app.py && rm data.bin" });
          assert.equal(write.exitCode, 0, write.stderr);
          const again = await runtime.launch({ from: snapshot.id });
          assert.equal(new TextDecoder().decode(await runtime.readFile(again, "src/app.py")), "print('v1')\n");
          await runtime.destroy(again);
        } finally {
          await runtime.destroy(restored);
        }
        await runtime.deleteSnapshot(snapshot);
      } finally {
        await runtime.destroy(source);
      }
    });
  }
});

describe("snapshots are owned, listed and deleted like sandboxes", () => {
  const runtime = new LocalRuntime({ root: root.path, isolation: "none", owner: "snapshots-owner" });
  const stranger = new LocalRuntime({ root: root.path, isolation: "none", owner: "snapshots-stranger" });

  test("listSnapshots finds ours by label, deleteSnapshot removes one for good, a launch from it is NOT_FOUND", async () => {
    const source = await runtime.launch();
    const theirSource = await stranger.launch();
    try {
      const first = await runtime.snapshot(source, { labels: { run: "a" } });
      const second = await runtime.snapshot(source, { labels: { run: "b" } });
      const theirs = await stranger.snapshot(theirSource, { labels: { run: "a" } });
      assert.deepEqual(
        (await runtime.listSnapshots({})).map((snapshot) => snapshot.id),
        [first.id, second.id].sort(),
      );
      assert.deepEqual(
        (await runtime.listSnapshots({ run: "a" })).map((snapshot) => snapshot.id),
        [first.id],
      );
      await runtime.deleteSnapshot(first.id);
      assert.deepEqual(
        (await runtime.listSnapshots({})).map((snapshot) => snapshot.id),
        [second.id],
      );
      await runtime.deleteSnapshot(first.id);
      await assert.rejects(runtime.launch({ from: first, labels: { from: "deleted" } }), isCode("NOT_FOUND"));
      assert.deepEqual(await runtime.findByLabels({ from: "deleted" }), [], "nothing was launched fresh instead");
      // Another owner's snapshot over the same root: never listed, never read, never deleted.
      await assert.rejects(runtime.launch({ from: theirs.id }), isCode("NOT_FOUND"));
      await assert.rejects(runtime.deleteSnapshot(theirs), isCode("FOREIGN_SANDBOX"));
      assert.deepEqual(
        (await stranger.listSnapshots({})).map((snapshot) => snapshot.id),
        [theirs.id],
      );
      await runtime.deleteSnapshot(second);
      await stranger.deleteSnapshot(theirs);
    } finally {
      await runtime.destroy(source);
      await stranger.destroy(theirSource);
    }
  });

  test("malformed ids, another provider's snapshot and bad options are INVALID_REQUEST before anything is made", async () => {
    const source = await runtime.launch();
    try {
      for (const from of ["../etc", "snap-1", { id: "snap-00000000000000000000", provider: "e2b" }]) {
        await assert.rejects(
          runtime.launch({ from: from as never, labels: { bad: "from" } }),
          isCode("INVALID_REQUEST"),
        );
      }
      assert.deepEqual(await runtime.findByLabels({ bad: "from" }), []);
      await assert.rejects(runtime.snapshot(source, { labels: { "sandport.owner": "x" } }), isCode("INVALID_REQUEST"));
      await assert.rejects(runtime.snapshot(source, { lables: {} } as never), isCode("INVALID_REQUEST"));
      await assert.rejects(runtime.deleteSnapshot("../x"), isCode("INVALID_REQUEST"));
      assert.deepEqual(await runtime.listSnapshots({}), []);
    } finally {
      await runtime.destroy(source);
    }
  });

  test("a snapshot of a destroyed sandbox is NOT_FOUND; an aborted one leaves nothing", async () => {
    const source = await runtime.launch();
    await runtime.writeFiles(source, [{ path: "a.txt", content: "a" }]);
    const aborted = new AbortController();
    aborted.abort(new Error("changed my mind"));
    await assert.rejects(runtime.snapshot(source, { signal: aborted.signal }), isCode("ABORTED"));
    await runtime.destroy(source);
    await assert.rejects(runtime.snapshot(source), isCode("NOT_FOUND"));
    assert.deepEqual(await runtime.listSnapshots({}), []);
    const area = readdirSync(join(root.path, ".snapshots")).filter((name) => !name.startsWith("snap-"));
    assert.deepEqual(
      area.filter((name) => name.includes("snapshots-owner")),
      [],
      "no staging directory is left behind",
    );
  });
});

describe("a command racing a snapshot cannot make it read outside the workspace", () => {
  const runtime = new LocalRuntime({ root: root.path, isolation: "none", owner: "snapshots-race" });

  test("a directory swapped for a symlink to a host directory, over and over: the secret is never copied", async () => {
    // The host directory has the same names as the workspace's: a copy that walks by path, and so passes
    // through the symlink while it is there, copies the host's files in place of the workspace's.
    const secret = join(root.path, "host-secret");
    mkdirSync(secret, { recursive: true });
    const names = Array.from({ length: 400 }, (_, index) => `f${index}.txt`);
    for (const name of names) writeFileSync(join(secret, name), "SECRET-HOST-KEY");
    const source = await runtime.launch();
    try {
      await runtime.writeFiles(
        source,
        names.map((name) => ({ path: `d/${name}`, content: "workspace" })),
      );
      await runtime.exec(source, { shell: "mkfifo pipe" });
      const swapping = runtime.exec(source, {
        shell: `end=$(( $(date +%s) + 4 )); while [ $(date +%s) -lt $end ]; do mv d d.real; ln -s ${secret} d; sleep 0.002; rm d; mv d.real d; done`,
        timeoutMs: 10_000,
      });
      const snapshots = [];
      for (let round = 0; round < 12; round++) snapshots.push(await runtime.snapshot(source));
      assert.equal((await swapping).exitCode, 0);
      for (const snapshot of snapshots) {
        const restored = await runtime.launch({ from: snapshot });
        // grep -r follows no symlink but those on its command line: a copied link is text, not content.
        const found = await runtime.exec(restored, { argv: ["grep", "-rl", "SECRET-HOST-KEY", "."] });
        assert.deepEqual([found.exitCode, found.stdout], [1, ""], `${snapshot.id} holds the host's secret`);
        const entries = await runtime.exec(restored, { argv: ["ls", "-A"] });
        assert.doesNotMatch(entries.stdout, /pipe/, "a FIFO is not carried");
        await runtime.destroy(restored);
        await runtime.deleteSnapshot(snapshot);
      }
    } finally {
      await runtime.destroy(source);
    }
  });
});
