// A command's process group is signalled by its leader's pid: once the leader has exited and the
// group was reaped, that pid may name another command's group, and must never be signalled again.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
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
