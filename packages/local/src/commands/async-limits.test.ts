// An async command stopped at a sandbox limit says which, in commandStatus and commandLogs alike, as exec does.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import type { CommandRef, LaunchSpec } from "@sandport/core";
import type { LocalHandle } from "../handle.js";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { bwrapSkipReason, temporaryDirectory, waitFor } from "../runtime.fixture.js";
import { asyncLimit } from "./async-commands.js";

const root = temporaryDirectory("async-limits");
after(() => root.remove());
const skipNamespaces = await bwrapSkipReason();

const memoryBomb = "head -c 512m /dev/zero | tail";
const forkBomb = "for i in $(seq 200); do sleep 600 & done; wait";
const diskFill = "dd if=/dev/zero of=fill bs=1M count=100000; exit 1";

for (const isolation of ["none", "namespaces"] as const) {
  const options: LocalRuntimeOptions = { root: root.path, isolation, killGraceMs: 100 };
  const probe = new LocalRuntime(options);
  const caps = probe.capabilities;
  const skipIsolation = isolation === "namespaces" ? skipNamespaces : undefined;
  describe(`async commands at a limit (isolation: ${isolation})`, { skip: skipIsolation }, () => {
    const rt = probe;
    let counter = 0;

    /** Starts `shell` in a fresh sandbox launched with `spec`, waits for it to end, returns status and logs. */
    async function runAsync(spec: LaunchSpec, shell: string) {
      const handle: LocalHandle = await rt.launch(spec);
      try {
        const ref: CommandRef = await rt.startCommand(handle, {
          sessionId: `s-${++counter}`,
          shell,
          timeoutMs: 60_000,
        });
        let status = await rt.commandStatus(handle, ref);
        await waitFor(async () => {
          status = await rt.commandStatus(handle, ref);
          return status.state === "exited";
        }, 90_000);
        return { status, logs: await rt.commandLogs(handle, ref) };
      } finally {
        await rt.destroy(handle);
      }
    }

    const unless = (declared: unknown, name: string) =>
      declared === true ? undefined : `${name} is ${String(declared)} on this host`;

    test("a memory bomb: limit memory", { skip: unless(caps.memoryLimit, "memoryLimit") }, async () => {
      const { status, logs } = await runAsync({ resources: { memoryMiB: 64 } }, memoryBomb);
      assert.equal(status.limit, "memory", JSON.stringify(status));
      assert.notEqual(status.exitCode, 0);
      assert.equal(logs.limit, "memory");
    });

    test("a fork bomb: limit processes", { skip: unless(caps.processLimit, "processLimit") }, async () => {
      const { status, logs } = await runAsync({ resources: { maxProcesses: 20 } }, forkBomb);
      assert.equal(status.limit, "processes", JSON.stringify(status));
      assert.equal(logs.limit, "processes");
    });

    test("filling a bounded workspace: limit disk", { skip: unless(caps.diskLimit, "diskLimit") }, async () => {
      const { status, logs } = await runAsync({ resources: { diskMiB: 16 } }, diskFill);
      assert.deepEqual([status.exitCode, status.limit], [1, "disk"], JSON.stringify(status));
      assert.match(logs.stderr, /No space left on device/);
      assert.equal(logs.limit, "disk");
    });

    test("a command that succeeds, or fails with room left, under every limit: no limit", async () => {
      const resources = {
        ...(caps.memoryLimit === true ? { memoryMiB: 256 } : {}),
        ...(caps.processLimit === true ? { maxProcesses: 64 } : {}),
        ...(caps.diskLimit === true ? { diskMiB: 16 } : {}),
      };
      const fine = await runAsync({ resources }, "echo fine");
      assert.deepEqual([fine.status.exitCode, fine.status.limit, fine.logs.limit], [0, undefined, undefined]);
      const failed = await runAsync({ resources }, "exit 4");
      assert.deepEqual([failed.status.exitCode, failed.status.limit, failed.logs.limit], [4, undefined, undefined]);
    });
  });
}

test("the judgement of a supervisor's readings: counters first, then a full file system; nothing unwatched", () => {
  const counters = (oom: number, forks: number) => [
    { memory: `oom 0\noom_kill ${oom}\n`, pids: `max ${forks}\n`, current: "1\n" },
  ];
  const full = { bsize: 4096, blocks: 4096, bavail: 2, files: 100, ffree: 50 };
  const roomy = { ...full, bavail: 3000 };
  assert.equal(asyncLimit({}), undefined);
  assert.equal(asyncLimit({ watched: { before: counters(0, 0), after: counters(1, 0) } }), "memory");
  assert.equal(asyncLimit({ watched: { before: counters(0, 0), after: counters(0, 3) } }), "processes");
  assert.equal(asyncLimit({ watched: { before: counters(2, 0), after: counters(2, 0), disk: full } }), "disk");
  assert.equal(asyncLimit({ watched: { before: [], after: [], disk: roomy } }), undefined);
  assert.equal(asyncLimit({ watched: { before: [], after: [], disk: { ...roomy, ffree: 0 } } }), "disk");
});
