// One uid per sandbox under a root runtime: each sandbox's commands, namespace holder and workspace are a uid of
// its own, so neither another sandbox nor a host process running as another unprivileged user reads its files.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { DEFAULT_SANDBOX_UIDS, type LocalHandle, LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { runsAsRoot } from "../options.js";
import { bwrapSkipReason, ENTRY, runNodeChild, temporaryDirectory } from "../runtime.fixture.js";
import type { SandboxRecord } from "../store/sandbox-record.js";

const skip =
  (await bwrapSkipReason()) ??
  (runsAsRoot() ? undefined : "sandboxes have uids of their own only under a root runtime");
const root = temporaryDirectory("uids");
const markers = temporaryDirectory("uid-markers");
after(async () => {
  await root.remove();
  await markers.remove();
});

/** A range of `count` uids no other test uses (the markers live in this file's own directory anyway). */
function freshRange(count: number): { first: number; count: number; directory: string } {
  const first = 1_900_000_000 + Math.floor(Math.random() * 1_000) * 100_000;
  return { first, count, directory: markers.path };
}

function runtime(options: LocalRuntimeOptions = {}): LocalRuntime {
  return new LocalRuntime({ root: root.path, killGraceMs: 100, ...options });
}

/** The uid a sandbox's record names. */
function uidOf(handle: LocalHandle, base = root.path): number {
  const record = JSON.parse(readFileSync(join(base, handle.id, "sandbox.json"), "utf8")) as SandboxRecord;
  assert.ok(record.user, `sandbox ${handle.id} records its user`);
  assert.equal(record.user.gid, record.user.uid, "its gid is the same number");
  return record.user.uid;
}

/** Runs `cat path` on the host as `uid`:`uid` with no supplementary groups, outside any sandbox. */
function catAs(uid: number, path: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    "/usr/bin/setpriv",
    [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", "/bin/cat", path],
    { encoding: "utf8" },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("one uid per sandbox (root runtime)", { skip }, () => {
  test("two sandboxes run as two different uids of the range, each owning its workspace (0700)", async () => {
    const isolated = runtime();
    const [a, b] = await Promise.all([isolated.launch(), isolated.launch()]);
    try {
      const [idA, idB] = await Promise.all([a, b].map((handle) => isolated.exec(handle, { shell: "id -u; id -g" })));
      const [uidA, uidB] = [uidOf(a), uidOf(b)];
      assert.notEqual(uidA, uidB);
      assert.equal(idA?.stdout, `${uidA}\n${uidA}\n`);
      assert.equal(idB?.stdout, `${uidB}\n${uidB}\n`);
      const { first, count } = DEFAULT_SANDBOX_UIDS;
      for (const uid of [uidA, uidB]) assert.ok(uid >= first && uid < first + count, `${uid} is in the default range`);
      const workspace = statSync(a.workspaceDirectory);
      assert.deepEqual([workspace.uid, workspace.gid, workspace.mode & 0o777], [uidA, uidA, 0o700]);
    } finally {
      await Promise.all([isolated.destroy(a), isolated.destroy(b)]);
    }
  });

  test("sandbox B, and host processes as B's uid or as 65534, are refused on A's files; A's own uid reads them", async () => {
    const isolated = runtime();
    const [a, b] = await Promise.all([isolated.launch(), isolated.launch()]);
    try {
      await isolated.writeFiles(a, [{ path: "secret.txt", content: "a's secret\n" }]);
      const made = await isolated.exec(a, { shell: "echo made inside > inside.txt" });
      assert.equal(made.exitCode, 0, made.stderr);
      const [uidA, uidB] = [uidOf(a), uidOf(b)];
      for (const name of ["secret.txt", "inside.txt"]) {
        const path = join(a.workspaceDirectory, name);
        assert.equal(statSync(path).uid, uidA, `${name} belongs to A's uid`);
        // B knows the host path; its mount namespace does not even have it, and its uid could not open it.
        const fromB = await isolated.exec(b, { argv: ["cat", path] });
        assert.notEqual(fromB.exitCode, 0);
        assert.doesNotMatch(fromB.stdout, /secret|made inside/);
        for (const uid of [uidB, 65534]) {
          const outside = catAs(uid, path);
          assert.notEqual(outside.status, 0, `uid ${uid} outside any sandbox read ${name}`);
          assert.match(outside.stderr, /Permission denied/);
        }
        // Control: the same read as A's own uid succeeds, so the refusals above are the uids', not the path's.
        assert.equal(catAs(uidA, path).status, 0);
      }
    } finally {
      await Promise.all([isolated.destroy(a), isolated.destroy(b)]);
    }
  });

  test("the relays' socket directories of a sandbox (ports, egress) are entered by its uid alone", async () => {
    const isolated = runtime();
    const [a, b] = await Promise.all([
      isolated.launch({ ports: [8201], network: { allow: ["example.com"] } }),
      isolated.launch(),
    ]);
    try {
      const [uidA, uidB] = [uidOf(a), uidOf(b)];
      for (const name of ["ports", "egress"]) {
        const directory = join(root.path, a.id, name);
        const stat = statSync(directory);
        assert.deepEqual([stat.uid, stat.gid, stat.mode & 0o777], [0, uidA, 0o750], name);
        const relay = join(directory, name === "ports" ? "relay.cjs" : "egress-relay.cjs");
        assert.ok(existsSync(relay), `${relay} is there`);
        for (const uid of [uidB, 65534]) assert.notEqual(catAs(uid, relay).status, 0, `uid ${uid} entered ${name}`);
        assert.equal(catAs(uidA, relay).status, 0, `A's uid enters ${name}`);
      }
    } finally {
      await Promise.all([isolated.destroy(a), isolated.destroy(b)]);
    }
  });

  test("a uid is taken again only once its sandbox is destroyed; a full range refuses the launch", async () => {
    const range = freshRange(2);
    const isolated = runtime({ sandboxUids: range });
    const [a, b] = await Promise.all([isolated.launch(), isolated.launch()]);
    const uids = [uidOf(a), uidOf(b)].sort();
    assert.deepEqual(uids, [range.first, range.first + 1]);
    await assert.rejects(isolated.launch(), (error) => {
      assert.ok(SandportError.hasCode(error, "UNSUPPORTED"));
      assert.match((error as Error).message, /every uid of sandboxUids/);
      return true;
    });
    const freed = uidOf(a);
    await isolated.destroy(a);
    assert.equal(existsSync(join(range.directory, String(freed))), false, "destroy gave its uid back");
    const c = await isolated.launch();
    try {
      assert.equal(uidOf(c), freed);
      assert.equal((await isolated.exec(c, { shell: "id -u" })).stdout, `${freed}\n`);
    } finally {
      await Promise.all([isolated.destroy(b), isolated.destroy(c)]);
    }
  });

  test("files of a fork and of a launch from a snapshot belong to the new sandbox's uid", async () => {
    const isolated = runtime();
    const source = await isolated.launch();
    await isolated.writeFiles(source, [{ path: "dir/file.txt", content: "copied\n" }]);
    const snapshot = await isolated.snapshot(source);
    const [fork, restored] = await Promise.all([isolated.fork(source), isolated.launch({ from: snapshot })]);
    try {
      for (const copy of [fork, restored]) {
        const uid = uidOf(copy);
        assert.notEqual(uid, uidOf(source));
        for (const path of ["", "dir", "dir/file.txt", ".tmp"]) {
          const stat = statSync(join(copy.workspaceDirectory, path));
          assert.deepEqual([stat.uid, stat.gid], [uid, uid], `${path || "the workspace"} of ${copy.id}`);
        }
        const edit = await isolated.exec(copy, { shell: "echo more >> dir/file.txt && cat dir/file.txt" });
        assert.equal(edit.stdout, "copied\nmore\n", edit.stderr);
        assert.notEqual(catAs(uidOf(source), join(copy.workspaceDirectory, "dir/file.txt")).status, 0);
      }
    } finally {
      await Promise.all([source, fork, restored].map((handle) => isolated.destroy(handle)));
      await isolated.deleteSnapshot(snapshot);
    }
  });

  test('namespaceScope "sandbox": each holder runs as its sandbox\'s uid, and commands too', async () => {
    const shared = runtime({ namespaceScope: "sandbox" });
    const [a, b] = await Promise.all([shared.launch(), shared.launch()]);
    try {
      for (const handle of [a, b]) {
        const uid = uidOf(handle);
        const record = JSON.parse(readFileSync(join(root.path, handle.id, "sandbox.json"), "utf8")) as SandboxRecord;
        const holder = record.namespaces?.pid as number;
        const status = readFileSync(`/proc/${holder}/status`, "utf8");
        assert.match(status, new RegExp(`^Uid:\\t${uid}\\t${uid}\\t${uid}\\t${uid}$`, "m"));
        assert.equal((await shared.exec(handle, { shell: "id -u" })).stdout, `${uid}\n`);
      }
      assert.notEqual(uidOf(a), uidOf(b));
      await shared.writeFiles(a, [{ path: "secret.txt", content: "a\n" }]);
      const fromB = await shared.exec(b, { argv: ["cat", join(a.workspaceDirectory, "secret.txt")] });
      assert.notEqual(fromB.exitCode, 0);
      assert.notEqual(catAs(uidOf(b), join(a.workspaceDirectory, "secret.txt")).status, 0);
    } finally {
      await Promise.all([shared.destroy(a), shared.destroy(b)]);
    }
  });

  test("concurrent launches from runtimes in two processes over one root never share a uid", async () => {
    const perProcess = 6;
    // Exactly as many uids as launches: any double allocation leaves one launch refused or two sandboxes alike.
    const range = freshRange(perProcess * 2);
    const script = `
      import { readFileSync } from "node:fs";
      import { LocalRuntime } from ${JSON.stringify(ENTRY)};
      const runtime = new LocalRuntime(${JSON.stringify({ root: root.path, sandboxUids: range })});
      const handles = await Promise.all(Array.from({ length: ${perProcess} }, () => runtime.launch()));
      const uids = [];
      for (const handle of handles) {
        const inside = (await runtime.exec(handle, { shell: "id -u" })).stdout.trim();
        const recorded = JSON.parse(readFileSync(${JSON.stringify(root.path)} + "/" + handle.id + "/sandbox.json", "utf8")).user.uid;
        uids.push({ id: handle.id, inside: Number(inside), recorded });
      }
      console.log(JSON.stringify(uids));
    `;
    const outputs = await Promise.all([runNodeChild(script), runNodeChild(script)]);
    const launched: { id: string; inside: number; recorded: number }[] = [];
    for (const output of outputs) {
      assert.equal(output.code, 0, output.stderr);
      launched.push(...JSON.parse(output.stdout));
    }
    const isolated = runtime({ sandboxUids: range });
    try {
      assert.equal(launched.length, perProcess * 2);
      for (const sandbox of launched) assert.equal(sandbox.inside, sandbox.recorded);
      const uids = launched.map((sandbox) => sandbox.recorded);
      assert.equal(new Set(uids).size, uids.length, `uids shared: ${uids.join(", ")}`);
      for (const uid of uids) assert.ok(uid >= range.first && uid < range.first + range.count);
    } finally {
      for (const sandbox of launched) {
        const handle = await isolated.getById(sandbox.id);
        if (handle) await isolated.destroy(handle);
      }
    }
  });

  test("sandboxUser, when given, is the one user of every sandbox; it and sandboxUids together are refused", async () => {
    assert.throws(
      () => runtime({ sandboxUser: { uid: 23456, gid: 23456 }, sandboxUids: freshRange(4) }),
      (error) => SandportError.hasCode(error, "INVALID_REQUEST") && /sandboxUids/.test((error as Error).message),
    );
    const single = runtime({ sandboxUser: { uid: 23456, gid: 23457 } });
    const [a, b] = await Promise.all([single.launch(), single.launch()]);
    try {
      for (const handle of [a, b])
        assert.equal((await single.exec(handle, { shell: "id -u; id -g" })).stdout, "23456\n23457\n");
    } finally {
      await Promise.all([single.destroy(a), single.destroy(b)]);
    }
  });
});

test("sandboxUids outside 65536 to 2^31 - 1, or malformed, is refused at construction", () => {
  for (const sandboxUids of [
    { first: 1000, count: 10 },
    { first: 2 ** 31 - 5, count: 10 },
    { first: 2_000_000_000, count: 0 },
    { first: 2_000_000_000, count: 10, directory: "relative" },
    { first: 2_000_000_000, count: 10, extra: 1 },
  ]) {
    assert.throws(
      () => new LocalRuntime({ sandboxUids: sandboxUids as LocalRuntimeOptions["sandboxUids"] }),
      (error) => SandportError.hasCode(error, "INVALID_REQUEST"),
      JSON.stringify(sandboxUids),
    );
  }
});
