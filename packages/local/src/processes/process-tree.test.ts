import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { processesWithArgument, uniqueSleep, waitFor } from "../runtime.fixture.js";
import { descendants, identify, isAlive } from "./process-tree.js";

test("descendants finds children and grandchildren, in a session of their own too, and not the process itself", async () => {
  const marker = uniqueSleep();
  const leader = spawn("sh", ["-c", `sleep ${marker} & setsid sh -c 'sleep ${marker}' & wait`], { stdio: "ignore" });
  try {
    assert.ok(await waitFor(() => processesWithArgument(marker).length === 2, 10_000), "both sleeps run");
    const found = descendants(leader.pid as number);
    const pids = found.map((process) => process.pid);
    for (const sleeper of processesWithArgument(marker)) assert.ok(pids.includes(sleeper), `sleep ${sleeper} found`);
    assert.ok(!pids.includes(leader.pid as number));
    assert.ok(found.every(isAlive));
    assert.deepEqual(found[0], identify(found[0]?.pid as number));
  } finally {
    for (const sleeper of processesWithArgument(marker)) process.kill(sleeper, "SIGKILL");
    leader.kill("SIGKILL");
  }
});
