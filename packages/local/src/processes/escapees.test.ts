// Under isolation "none", processes that leave the command's process group (`setsid`, double forks)
// are still killed with it: through its cgroup where one is writable, and through the
// SANDPORT_LOCAL_COMMAND_ID marker in their environment with or without one. The last test pins down
// what is not caught: an escapee that also clears its environment.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { SandportError } from "@sandport/core";
import { probeCgroupHost } from "../cgroups/cgroup-host.js";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import {
  ENTRY,
  killProcessesWithArgument,
  processesWithArgument,
  runNodeChild,
  temporaryDirectory,
  uniqueSleep,
  waitFor,
} from "../runtime.fixture.js";

const root = temporaryDirectory("escapees");
after(() => root.remove());
const host = await probeCgroupHost();
const noTracking =
  host.unified?.canKill || host.legacy.pids || host.legacy.freezer ? undefined : "no writable cgroup to track commands";

function runtime(options: LocalRuntimeOptions = {}): LocalRuntime {
  return new LocalRuntime({ root: root.path, isolation: "none", killGraceMs: 100, ...options });
}

/** Three sleeps: one in the group, one after `setsid`, one double-forked after `setsid`. */
function escapingScript(grouped: string, escaped: string, forked: string): string {
  return `sleep ${grouped} & setsid sleep ${escaped} & (setsid sh -c 'sleep ${forked} &')`;
}

for (const cgroups of ["auto", "disabled"] as const) {
  for (const form of ["argv", "shell"] as const) {
    describe(`none, cgroups: ${cgroups}, ${form} command`, () => {
      const rt = runtime({ cgroups });
      const request = (script: string) => (form === "argv" ? { argv: ["/bin/sh", "-c", script] } : { shell: script });

      test("a timeout kills setsid and double-fork escapees", async () => {
        const handle = await rt.launch();
        const sleeps = [uniqueSleep(), uniqueSleep(), uniqueSleep()] as const;
        try {
          const result = await rt.exec(handle, { ...request(`${escapingScript(...sleeps)}; wait`), timeoutMs: 500 });
          assert.equal(result.timedOut, true);
          const alive = () => sleeps.flatMap((sleep) => processesWithArgument(sleep));
          assert.ok(await waitFor(() => alive().length === 0, 3_000), `survivors: ${alive().join(", ")}`);
        } finally {
          for (const sleep of sleeps) killProcessesWithArgument(sleep);
          await rt.destroy(handle);
        }
      });

      test("a command that exits leaves no escapee running", async () => {
        const handle = await rt.launch();
        const sleeps = [uniqueSleep(), uniqueSleep(), uniqueSleep()] as const;
        try {
          // Waits until all three run, then exits 0, leaving them behind.
          const running = sleeps.map((sleep) => `pgrep -fx 'sleep ${sleep}'`).join(" && ");
          const script = `${escapingScript(...sleeps)}; until { ${running}; } >/dev/null; do sleep 0.02; done`;
          const result = await rt.exec(handle, { ...request(script), timeoutMs: 20_000 });
          assert.equal(result.exitCode, 0, result.stderr);
          const alive = () => sleeps.flatMap((sleep) => processesWithArgument(sleep));
          assert.ok(await waitFor(() => alive().length === 0, 3_000), `survivors: ${alive().join(", ")}`);
        } finally {
          for (const sleep of sleeps) killProcessesWithArgument(sleep);
          await rt.destroy(handle);
        }
      });
    });
  }
}

describe("none: how escapees are recognised", () => {
  test("every command carries its own SANDPORT_LOCAL_COMMAND_ID, starting with the sandbox id", async () => {
    const rt = runtime();
    const handle = await rt.launch({});
    const print = { argv: ["sh", "-c", 'printf %s "$SANDPORT_LOCAL_COMMAND_ID"'] };
    const [first, second] = await Promise.all([rt.exec(handle, print), rt.exec(handle, print)]);
    assert.ok(first.stdout.startsWith(`${handle.id}.`), first.stdout);
    assert.ok(second.stdout.startsWith(`${handle.id}.`), second.stdout);
    assert.notEqual(first.stdout, second.stdout);
    await rt.destroy(handle);
  });

  test("a launch or request env that sets SANDPORT_LOCAL_COMMAND_ID is refused before anything runs", async () => {
    const rt = runtime();
    const invalid = (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST");
    await assert.rejects(rt.launch({ env: { SANDPORT_LOCAL_COMMAND_ID: "from-launch" } }), invalid);
    const handle = await rt.launch({});
    const claim = { argv: ["touch", "ran"], env: { SANDPORT_LOCAL_COMMAND_ID: "from-request" } };
    await assert.rejects(rt.exec(handle, claim), invalid);
    await assert.rejects(rt.startCommand(handle, { ...claim, sessionId: "s1" }), invalid);
    await assert.rejects(rt.stat(handle, "ran"), (error: unknown) => SandportError.hasCode(error, "NOT_FOUND"));
    await rt.destroy(handle);
  });

  test("an argv command without limits is in its own cgroup leaf (moved right after spawn)", {
    skip: noTracking,
  }, async () => {
    const rt = runtime();
    const handle = await rt.launch();
    // Polls rather than reading once: the move happens just after exec, and the host may be loaded.
    const script =
      "for i in $(seq 250); do grep -q /exec- /proc/$$/cgroup && break; sleep 0.02; done; cat /proc/$$/cgroup";
    const result = await rt.exec(handle, { argv: ["sh", "-c", script] });
    assert.match(result.stdout, new RegExp(`/sandport-${handle.id}\\.[^/]+/exec-\\d+-\\d+$`, "m"));
    await rt.destroy(handle);
  });

  test("leaves are reused by later commands, never shared by commands running at once", {
    skip: noTracking,
  }, async () => {
    const rt = runtime();
    const handle = await rt.launch();
    const script =
      "for i in $(seq 250); do grep -q /exec- /proc/$$/cgroup && break; sleep 0.02; done; grep -o 'exec-[0-9-]*' /proc/$$/cgroup | head -1";
    const leafOf = async (extra = "") =>
      (await rt.exec(handle, { argv: ["sh", "-c", `${script}${extra}`] })).stdout.trim();
    const seen = new Set<string>();
    let reused = false;
    // A leaf goes back to the pool in the background once its command ended: a later command finds it there.
    for (let round = 0; round < 30 && !reused; round++) {
      const leaf = await leafOf();
      reused = seen.has(leaf);
      seen.add(leaf);
      await sleep(20);
    }
    assert.ok(reused, `a later command ran in an earlier one's leaf (saw ${[...seen].join(", ")})`);
    const together = await Promise.all([1, 2, 3, 4].map(() => leafOf("; sleep 0.3")));
    assert.equal(new Set(together).size, 4, `four commands at once, four leaves: ${together.join(", ")}`);
    await rt.destroy(handle);
  });

  test("destroy kills what a command left running after its runtime process died (cgroups: disabled)", async () => {
    const options = { root: root.path, isolation: "none", cgroups: "disabled", killGraceMs: 100 } as const;
    const rt = runtime(options);
    const handle = await rt.launch();
    const [grouped, escaped] = [uniqueSleep(), uniqueSleep()];
    const child = runNodeChild(`
      import { LocalRuntime } from ${JSON.stringify(ENTRY)};
      const runtime = new LocalRuntime(${JSON.stringify(options)});
      const handle = await runtime.getById(${JSON.stringify(handle.id)});
      await runtime.exec(handle, { shell: "setsid sleep ${escaped} & sleep ${grouped}", timeoutMs: 60000 });
    `);
    try {
      const running = () => processesWithArgument(grouped).length + processesWithArgument(escaped).length === 2;
      assert.ok(await waitFor(running, 10_000), "both sleeps run");
      child.child.kill("SIGKILL");
      await child;
      assert.ok(running(), "control: nothing killed them with their runtime process");
      await rt.destroy(handle);
      assert.deepEqual([...processesWithArgument(grouped), ...processesWithArgument(escaped)], []);
    } finally {
      killProcessesWithArgument(grouped);
      killProcessesWithArgument(escaped);
    }
  });

  test("an async command's setsid escapee dies when the command exits (cgroups: disabled)", async () => {
    const rt = runtime({ cgroups: "disabled" });
    const handle = await rt.launch();
    const escaped = uniqueSleep();
    try {
      const ref = await rt.startCommand(handle, {
        sessionId: "escape",
        argv: [
          "sh",
          "-c",
          `setsid sleep ${escaped} & until pgrep -fx 'sleep ${escaped}' >/dev/null; do sleep 0.02; done`,
        ],
      });
      const exited = async () => (await rt.commandStatus(handle, ref)).state === "exited";
      assert.ok(await waitFor(exited, 20_000), "the command exits");
      assert.equal((await rt.commandLogs(handle, ref)).exitCode, 0);
      assert.ok(await waitFor(() => processesWithArgument(escaped).length === 0, 3_000), "the escapee died");
    } finally {
      killProcessesWithArgument(escaped);
      await rt.destroy(handle);
    }
  });

  test("the limit: an escapee that clears its environment (env -i) survives without cgroups", async () => {
    const rt = runtime({ cgroups: "disabled" });
    const handle = await rt.launch();
    const [kept, cleared] = [uniqueSleep(), uniqueSleep()];
    try {
      const result = await rt.exec(handle, {
        shell: `setsid sleep ${kept} & setsid env -i sleep ${cleared} & wait`,
        timeoutMs: 500,
      });
      assert.equal(result.timedOut, true);
      assert.ok(await waitFor(() => processesWithArgument(kept).length === 0, 3_000), "the marked escapee died");
      assert.equal(processesWithArgument(cleared).length, 1, "left the group and the marker behind: not found");
    } finally {
      killProcessesWithArgument(cleared);
      await rt.destroy(handle);
    }
  });
});
