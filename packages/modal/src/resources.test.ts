// LaunchSpec.resources through the real modal SDK against the Modal emulator, which enforces Modal's hard
// limits (cpuLimit, memoryLimitMiB) and never a reservation: the port's memoryMiB holds in the sandbox.
import assert from "node:assert/strict";
import { test } from "node:test";
import { emulated } from "../test/emulated.js";

const { runtime } = await emulated({ owner: "resources-tests" });

test("a command past the memory limit is killed, and the sandbox runs the next one", async () => {
  const handle = await runtime.launch({ resources: { memoryMiB: 64 } });
  try {
    const bomb = await runtime.exec(handle, { shell: "head -c 256m /dev/zero | tail > /dev/null", timeoutMs: 60_000 });
    assert.notEqual(bomb.exitCode, 0, `the memory bomb was stopped: exit ${bomb.exitCode}`);
    assert.equal(bomb.timedOut, false);
    const next = await runtime.exec(handle, { shell: "echo still here" });
    assert.equal(next.stdout, "still here\n");
    assert.equal(handle.resources, undefined, "Modal's create says nothing of what was granted");
  } finally {
    await runtime.destroy(handle);
  }
});
