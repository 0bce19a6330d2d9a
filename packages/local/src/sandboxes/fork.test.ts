// fork: a new sandbox like the source (labels, env, limits; no launch key) with a copy of its workspace,
// taken with the source's processes frozen where it has a freezer; memory is not copied.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, SandportError } from "@sandport/core";
import { freezerSupport } from "../cgroups/freezer.js";
import { diskSupport } from "../disk/disk-support.js";
import { LocalRuntime } from "../index.js";
import { processesWithArgument, temporaryDirectory, uniqueSleep, waitFor } from "../runtime.fixture.js";

const root = temporaryDirectory("fork");
after(() => root.remove());

const support = freezerSupport();
const noFreezer = support.ok ? undefined : `this process cannot freeze sandboxes: ${support.reason}`;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The number in a counter file, or 0 before its first write (or while one is half-written). */
function readCounter(path: string): number {
  try {
    return Number(readFileSync(path, "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}

describe("fork under isolation none", () => {
  const runtime = new LocalRuntime({ root: root.path, isolation: "none", owner: "fork-none" });

  test("the fork has the source's files, labels and launch env, not its launch key, and is a sandbox of its own", async () => {
    const source = await runtime.launch({ labels: { job: "7" }, env: { GREETING: "hello" }, launchKey: "fork-key-1" });
    try {
      await runtime.writeFiles(source, [
        { path: "dir/data.bin", content: new Uint8Array([0, 1, 2, 255]) },
        { path: "run.sh", content: "echo ran", mode: 0o755 },
      ]);
      const fork = await runtime.fork(source);
      try {
        assert.notEqual(fork.id, source.id);
        assert.deepEqual({ ...fork.labels }, { job: "7" });
        assert.deepEqual([...(await runtime.readFile(fork, "dir/data.bin"))], [0, 1, 2, 255]);
        assert.equal((await runtime.stat(fork, "run.sh")).mode, 0o755, "modes are kept");
        assert.equal((await runtime.exec(fork, { shell: "echo $GREETING" })).stdout, "hello\n", "the launch env");
        const byKey = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: "fork-key-1" });
        assert.deepEqual(
          byKey.map((handle) => handle.id),
          [source.id],
          "the launch key still names the source alone",
        );
        assert.deepEqual(
          (await runtime.findByLabels({ job: "7" })).map((handle) => handle.id).sort(),
          [source.id, fork.id].sort(),
        );
      } finally {
        await runtime.destroy(fork);
      }
      assert.equal(text(await runtime.readFile(source, "dir/data.bin")).length, 4, "the source outlives its fork");
    } finally {
      await runtime.destroy(source);
    }
  });

  test("what runs in the source does not run in the fork: memory is not copied", async () => {
    const source = await runtime.launch();
    const marker = uniqueSleep();
    try {
      await runtime.startCommand(source, { shell: `sleep ${marker}`, sessionId: "sleeper" });
      assert.ok(await waitFor(() => processesWithArgument(marker).length === 1, 10_000), "the sleep runs");
      const fork = await runtime.fork(source);
      try {
        assert.equal(processesWithArgument(marker).length, 1, "only the source's sleep");
        assert.equal((await runtime.exec(fork, { argv: ["true"] })).exitCode, 0);
      } finally {
        await runtime.destroy(fork);
      }
    } finally {
      await runtime.destroy(source);
    }
  });

  test("labels given to fork replace the source's; bad options are refused before anything is made", async () => {
    const source = await runtime.launch({ labels: { job: "8", keep: "no" } });
    try {
      const fork = await runtime.fork(source, { labels: { job: "8-fork" } });
      try {
        assert.deepEqual({ ...fork.labels }, { job: "8-fork" });
        assert.deepEqual({ ...(await runtime.getById(fork.id))?.labels }, { job: "8-fork" }, "as stored");
      } finally {
        await runtime.destroy(fork);
      }
      for (const bad of [{ labels: { "sandport.owner": "x" } }, { launchKey: "k" }, { timeoutMs: 0 }]) {
        await assert.rejects(runtime.fork(source, bad as never), (error) =>
          SandportError.hasCode(error, "INVALID_REQUEST"),
        );
      }
      assert.deepEqual(
        (await runtime.findByLabels({ keep: "no" })).map((handle) => handle.id),
        [source.id],
        "no refused fork was made",
      );
    } finally {
      await runtime.destroy(source);
    }
  });

  test("a fork of a foreign or destroyed sandbox is refused and creates nothing", async () => {
    const other = new LocalRuntime({ root: root.path, isolation: "none", owner: "fork-other" });
    const foreign = await other.launch({ labels: { whose: "other" } });
    try {
      await assert.rejects(runtime.fork(foreign), (error) => SandportError.hasCode(error, "FOREIGN_SANDBOX"));
    } finally {
      await other.destroy(foreign);
    }
    await assert.rejects(runtime.fork(foreign), (error) => SandportError.hasCode(error, "NOT_FOUND"));
    assert.deepEqual(await runtime.findByLabels({ whose: "other" }), [], "nothing was launched");
  });

  test("the handle reports the limits its cgroups enforce, and none without limits", {
    skip:
      runtime.capabilities.processLimit === true
        ? undefined
        : `processLimit is ${runtime.capabilities.processLimit} here`,
  }, async () => {
    // Without default limits, so that a launch naming none has none (the defaults have tests of their own).
    const runtime = new LocalRuntime({
      root: root.path,
      isolation: "none",
      owner: "fork-none",
      defaultResources: false,
    });
    const limited = await runtime.launch({ resources: { maxProcesses: 64 } });
    const plain = await runtime.launch();
    try {
      assert.deepEqual(limited.resources, { maxProcesses: 64 });
      assert.deepEqual((await runtime.getById(limited.id))?.resources, { maxProcesses: 64 }, "a rebuilt handle too");
      assert.equal(plain.resources, undefined);
      const fork = await runtime.fork(limited);
      try {
        assert.deepEqual(fork.resources, { maxProcesses: 64 }, "the fork has the source's limits");
      } finally {
        await runtime.destroy(fork);
      }
    } finally {
      await runtime.destroy(limited);
      await runtime.destroy(plain);
    }
  });

  test("a running source is thawed after the copy, and a stopped one stays stopped", { skip: noFreezer }, async () => {
    const source = await runtime.launch();
    try {
      const count = join(source.workspaceDirectory, "count.txt");
      await runtime.startCommand(source, {
        shell: "n=0; while :; do n=$((n+1)); echo $n > count.txt; sleep 0.01; done",
        sessionId: "counter",
      });
      assert.ok(await waitFor(() => readCounter(count) > 2, 10_000), "the loop counts");
      const fork = await runtime.fork(source);
      const atFork = readCounter(count);
      assert.ok(await waitFor(() => readCounter(count) > atFork, 10_000), "the source's loop goes on after the fork");
      await runtime.destroy(fork);
      const together = await Promise.all([runtime.fork(source), runtime.fork(source), runtime.fork(source)]);
      for (const each of together) await runtime.destroy(each);
      const afterThree = readCounter(count);
      assert.ok(
        await waitFor(() => readCounter(count) > afterThree, 10_000),
        "the loop goes on after three forks at once",
      );
      await runtime.stop!(source);
      const second = await runtime.fork(source);
      await runtime.destroy(second);
      await assert.rejects(runtime.exec(source, { argv: ["true"] }), (error) =>
        SandportError.hasCode(error, "INVALID_REQUEST"),
      );
    } finally {
      await runtime.destroy(source);
    }
  });
});

const disk = diskSupport();
describe("fork of a bounded workspace", { skip: disk.ok ? undefined : `no disk bound here: ${disk.reason}` }, () => {
  const runtime = new LocalRuntime({ root: root.path, isolation: "none", owner: "fork-disk" });

  test("the fork has the source's files and a bound of its own, the same size", async () => {
    const source = await runtime.launch({ resources: { diskMiB: 16 } });
    try {
      await runtime.writeFiles(source, [{ path: "kept.txt", content: "bounded" }]);
      const fork = await runtime.fork(source);
      try {
        assert.equal(text(await runtime.readFile(fork, "kept.txt")), "bounded");
        // 20 MiB does not fit in the fork's 16 MiB: its workspace is bounded too, not the host's disk.
        const fill = await runtime.exec(fork, { shell: "head -c 20971520 /dev/zero > big; echo $?" });
        assert.notEqual(fill.stdout.trim(), "0", fill.stderr);
        assert.equal(fill.limit ?? "disk", "disk");
        assert.equal(text(await runtime.readFile(source, "kept.txt")), "bounded", "the source is untouched");
      } finally {
        await runtime.destroy(fork);
      }
    } finally {
      await runtime.destroy(source);
    }
  });
});
