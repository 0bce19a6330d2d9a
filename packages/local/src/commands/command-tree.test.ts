// A command's process group is signalled by its leader's pid: once the leader has exited and the
// group was reaped, that pid may name another command's group, and must never be signalled again.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { leafPool } from "../cgroups/leaf-pool.js";
import type { SpawnPlan } from "./command-plan.js";
import { CommandTree } from "./command-tree.js";

const plan: SpawnPlan = { file: "sleep", args: ["30"], env: {}, cwd: "/", isolation: "none" };

test("after reap, terminate and kill leave alone a group that now bears the command's pid", async () => {
  // Stands for a new command whose group got the old command's pid: the tree is built on its pid.
  const newcomer = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  await once(newcomer, "spawn");
  try {
    const tree = new CommandTree(plan, newcomer.pid as number);
    tree.reap(false);
    tree.terminate();
    tree.kill();
    // The newcomer must still run: signal it ourselves and see that it is this signal that ends it.
    process.kill(newcomer.pid as number, "SIGUSR1");
    const [code, signal] = (await once(newcomer, "exit")) as [number | null, NodeJS.Signals | null];
    assert.deepEqual([code, signal], [null, "SIGUSR1"], "only the test's own signal reached the newcomer");
  } finally {
    newcomer.kill("SIGKILL");
  }
});

test("before reap, terminate signals the command's group", async () => {
  const command = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  await once(command, "spawn");
  const tree = new CommandTree(plan, command.pid as number);
  const ended = once(command, "exit");
  tree.terminate();
  const [, signal] = (await ended) as [number | null, NodeJS.Signals | null];
  assert.equal(signal, "SIGTERM");
});

test("a leaf goes back to the pool after a command that ended by itself, never after one that was signalled", async () => {
  // Stands for a sandbox's tracking cgroup and its leaves: an empty `cgroup.procs` is an empty leaf.
  const tracking = mkdtempSync(join(tmpdir(), "sandport-tree-leaf-"));
  try {
    for (const signalled of [false, true]) {
      const directory = join(tracking, `leaf-${signalled}`);
      mkdirSync(directory);
      writeFileSync(join(directory, "cgroup.procs"), "");
      const command = spawn("true", { detached: true, stdio: "ignore" });
      await once(command, "exit");
      const tree = new CommandTree({ ...plan, leaf: { version: 1, directory } }, command.pid as number);
      tree.reap(false);
      // A stop's kill of the leaf's members may still land after the command ended (on cgroup v1, for rounds).
      if (signalled) tree.kill();
      await tree.release();
      assert.equal(
        leafPool.take(tracking),
        signalled ? undefined : directory,
        signalled ? "a signalled command's leaf is not handed out again" : "an ended command's empty leaf is kept",
      );
    }
  } finally {
    rmSync(tracking, { recursive: true, force: true });
  }
});
