// destroy kills the commands other processes run in a sandbox by the markers they left; a marker that
// outlived its command must not reach the process that took its pid since.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readlink, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { identify } from "./process-tree.js";
import { RunningMarkers } from "./running-markers.js";

test("killAll kills a recorded command, and leaves alone a pid that names another process now", async () => {
  const directory = await mkdtemp(join(tmpdir(), "sandport-markers-"));
  const running = join(directory, "running");
  await mkdir(running);
  const process_ = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  await once(process_, "spawn");
  const pid = process_.pid as number;
  try {
    // A marker left by an earlier process with this pid: same pid, another start time.
    const stale = { pid, startTime: "1", owner: identify(process.pid) };
    await symlink(JSON.stringify(stale), join(running, String(pid)));
    assert.deepEqual(await new RunningMarkers(running).killAll(), []);
    assert.equal(process_.exitCode, null, "the process that took the pid runs on");
    assert.doesNotThrow(() => process.kill(pid, 0));

    // Its own marker (written beside its start, replacing the stale one) is honoured.
    new RunningMarkers(running).add(pid);
    const own = identify(pid)?.startTime as string;
    const marker = join(running, String(pid));
    // The marker is replaced in the background: absent for a moment while the stale one goes.
    const written = () => readlink(marker).catch(() => "");
    for (let tries = 0; !(await written()).includes(`"startTime":"${own}"`); tries++) {
      assert.ok(tries < 500, "the command's own marker was written");
      await delay(10);
    }
    const ended = once(process_, "exit");
    const killed = await new RunningMarkers(running).killAll();
    assert.deepEqual(killed[0], { pid, startTime: own });
    assert.deepEqual((await ended)[1], "SIGKILL");
  } finally {
    process_.kill("SIGKILL");
    await rm(directory, { recursive: true, force: true });
  }
});
