// Resource limits are enforced through cgroups, or refused; never silently ignored.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type ExecEvent, SandportError, type TerminalEvent, validateLaunchSpec } from "@sandport/core";
import { diskSupport } from "../disk/disk-support.js";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { runsAsRoot } from "../options.js";
import { resolveOptions } from "../resolve-options.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";
import { checkLaunchable } from "../sandboxes/sandbox-setup.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import { probeCgroupHost } from "./cgroup-host.js";
import { limitsSupport } from "./limit-support.js";

const root = temporaryDirectory("resources");
after(() => root.remove());
const skipNamespaces = await bwrapSkipReason();
const host = await probeCgroupHost();
const controllers = new Set([...Object.keys(host.legacy), ...(host.unified?.controllers ?? [])]);
const noLimits = ["memory", "pids", "cpu"].every((name) => controllers.has(name))
  ? undefined
  : "no writable cgroup with memory, pids and cpu controllers here (the refusal test still runs)";

function runtime(options: LocalRuntimeOptions): LocalRuntime {
  return new LocalRuntime({ root: root.path, killGraceMs: 100, ...options });
}

// Allocates and touches 256 MiB in 16 MiB steps, then says so.
const allocate =
  "node -e \"const kept=[];for(let i=0;i<16;i++)kept.push(Buffer.alloc(16*1024*1024,1));console.log('ALLOCATED',kept.length)\"";
const forkMany = "for i in $(seq 40); do sleep 0.2 & done; wait; echo FORKED";
// Holds ever more memory: `tail` keeps the whole of a line that never ends.
const memoryBomb = "head -c 512m /dev/zero | tail";
// Forks children that hold their process slot, far past the limit; the shell fails at the first refused fork.
const forkBomb = "for i in $(seq 200); do sleep 600 & done; wait";

const configurations: [string, LocalRuntimeOptions][] = [
  ["namespaces", { isolation: "namespaces" }],
  ["none", { isolation: "none" }],
  ['namespaces, namespaceScope "sandbox"', { isolation: "namespaces", namespaceScope: "sandbox" }],
];
for (const [label, configuration] of configurations) {
  const shared = configuration.namespaceScope === "sandbox";
  const skip =
    (configuration.isolation === "namespaces" ? skipNamespaces : undefined) ??
    (shared && !runsAsRoot() ? "shared namespaces need a root runtime" : undefined) ??
    noLimits;
  describe(`limits are enforced (${label})`, { skip }, () => {
    const rt = skip ? (undefined as unknown as LocalRuntime) : runtime(configuration);

    test("memoryMiB: an allocation past the limit is killed; the same one without a limit completes", async () => {
      const limited = await rt.launch({ resources: { memoryMiB: 96 } });
      const unlimited = await rt.launch();
      const [capped, control] = await Promise.all([
        rt.exec(limited, { shell: allocate, timeoutMs: 30_000 }),
        rt.exec(unlimited, { shell: allocate, timeoutMs: 30_000 }),
      ]);
      assert.match(control.stdout, /ALLOCATED 16/, control.stderr);
      assert.doesNotMatch(capped.stdout, /ALLOCATED/);
      assert.notEqual(capped.exitCode, 0);
      await Promise.all([rt.destroy(limited), rt.destroy(unlimited)]);
    });

    test("maxProcesses: forking past the limit fails; the same script without a limit forks", async () => {
      const limited = await rt.launch({ resources: { maxProcesses: 12 } });
      const unlimited = await rt.launch();
      const [capped, control] = await Promise.all([
        rt.exec(limited, { shell: forkMany, timeoutMs: 30_000 }),
        rt.exec(unlimited, { shell: forkMany, timeoutMs: 30_000 }),
      ]);
      assert.match(control.stdout, /FORKED/);
      assert.equal(control.stderr, "");
      assert.match(capped.stderr, /fork/i);
      await Promise.all([rt.destroy(limited), rt.destroy(unlimited)]);
    });

    test("a memory bomb is killed at memoryMiB and says so; the next command of the sandbox runs", async () => {
      const handle = await rt.launch({ resources: { memoryMiB: 64 } });
      const bomb = await rt.exec(handle, { shell: memoryBomb, timeoutMs: 60_000 });
      assert.equal(bomb.limit, "memory", JSON.stringify(bomb));
      assert.equal(bomb.timedOut, false);
      assert.notEqual(bomb.exitCode, 0);
      const next = await rt.exec(handle, { shell: "echo still here", timeoutMs: 30_000 });
      assert.deepEqual([next.exitCode, next.stdout, "limit" in next], [0, "still here\n", false]);
      // A failure after the kill is not blamed on it: only a change seen during a command counts.
      const later = await rt.exec(handle, { shell: "exit 3" });
      assert.deepEqual([later.exitCode, "limit" in later], [3, false]);
      await rt.destroy(handle);
    });

    test("a fork bomb is stopped at maxProcesses and says so; nothing of it is left, the next command runs", async () => {
      const handle = await rt.launch({ resources: { maxProcesses: 20 } });
      const events: ExecEvent[] = [];
      for await (const event of rt.execStream(handle, { shell: forkBomb, timeoutMs: 120_000 })) events.push(event);
      const exited = events.at(-1);
      assert.ok(exited?.type === "exited");
      const bomb = exited.result;
      // The kernel kills nothing here: the shell's fork is refused and it exits with an error by itself.
      assert.equal(bomb.limit, "processes", JSON.stringify(bomb));
      assert.equal(bomb.timedOut, false);
      assert.notEqual(bomb.exitCode, 0);
      assert.notEqual(bomb.exitCode, null);
      assert.match(bomb.stderr, /fork/i);
      // The next command needs process slots: it runs only because the bomb's sleepers were killed with it.
      const next = await rt.exec(handle, { shell: "sleep 0 & sleep 0 & wait; echo still here", timeoutMs: 30_000 });
      assert.deepEqual([next.exitCode, next.stdout, "limit" in next], [0, "still here\n", false]);
      await rt.destroy(handle);
    });

    test("a terminal's program killed at memoryMiB has limit on its exited event", async () => {
      const handle = await rt.launch({ resources: { memoryMiB: 64 } });
      const terminal = await rt.openTerminal(handle, { shell: memoryBomb, timeoutMs: 60_000 });
      let exited: TerminalEvent | undefined;
      for await (const event of terminal.events) if (event.type === "exited") exited = event;
      assert.ok(exited?.type === "exited");
      assert.equal(exited.limit, "memory", JSON.stringify(exited));
      assert.notEqual(exited.exitCode, 0);
      await rt.destroy(handle);
    });

    test("commands under limits that hit none report no limit, whether they succeed or fail", async () => {
      const handle = await rt.launch({ resources: { memoryMiB: 64, maxProcesses: 20, cpus: 1 } });
      const ok = await rt.exec(handle, { shell: "echo fine" });
      const failed = await rt.exec(handle, { shell: "exit 137" });
      assert.deepEqual([ok.exitCode, "limit" in ok], [0, false]);
      // Exit 137 alone is no evidence of a limit.
      assert.deepEqual([failed.exitCode, "limit" in failed], [137, false]);
      await rt.destroy(handle);
    });

    test("cpus: the CPU quota is written to the sandbox's cgroup, and cgroups are removed on destroy", async () => {
      const handle = await rt.launch({ resources: { cpus: 0.5 } });
      const record = JSON.parse(readFileSync(join(root.path, handle.id, "sandbox.json"), "utf8")) as SandboxRecord;
      const directories = (record.cgroups?.limits ?? []).map((limit) => limit.directory);
      const quota = directories
        .flatMap((directory) => readdirSync(directory).map((file) => [directory, file] as const))
        .find(([, file]) => file === "cpu.cfs_quota_us" || file === "cpu.max");
      assert.ok(quota, "a cpu limit file exists");
      assert.match(readFileSync(join(...quota), "utf8"), /^50000\b/);
      const result = await rt.exec(handle, { argv: ["true"] });
      assert.equal(result.exitCode, 0);
      await rt.destroy(handle);
      for (const directory of directories) {
        assert.throws(() => readdirSync(directory), /ENOENT/, `${directory} was removed`);
      }
    });
  });
}

test("with cgroups disabled, a resource request is refused with UNSUPPORTED and nothing is created", async () => {
  const rt = runtime({ isolation: "none", cgroups: "disabled", owner: "refusals" });
  const declared = [rt.capabilities.memoryLimit, rt.capabilities.cpuLimit, rt.capabilities.processLimit];
  assert.deepEqual(declared, ["not-exposed", "not-exposed", "not-exposed"]);
  // Without `cgroups: "disabled"`, what this process can place (as root here; elsewhere, maybe nothing).
  const enforcing = runtime({ isolation: "none" }).capabilities;
  const placeable = limitsSupport(undefined);
  assert.deepEqual(
    [enforcing.memoryLimit, enforcing.cpuLimit, enforcing.processLimit],
    [placeable.memory, placeable.cpu, placeable.pids].map((verdict) => (verdict.ok ? true : "unsupported")),
  );
  for (const resources of [{ memoryMiB: 64 }, { maxProcesses: 4 }, { cpus: 1 }]) {
    await assert.rejects(rt.launch({ resources }), (error) => SandportError.hasCode(error, "UNSUPPORTED"));
  }
  assert.deepEqual(await rt.findByLabels({}), []);
});

test("diskMiB on a host that cannot bound workspaces is refused UNSUPPORTED naming why; a malformed one is INVALID_REQUEST", async () => {
  const rt = runtime({ isolation: "none", owner: "disk-refusals" });
  assert.equal(rt.capabilities.diskLimit, diskSupport().ok ? true : "unsupported");
  const options = resolveOptions({ root: root.path, isolation: "none" });
  const cgroups = limitsSupport(undefined);
  const refusal = (() => {
    try {
      checkLaunchable(validateLaunchSpec({ resources: { diskMiB: 1024 } }, "local"), options, {
        cgroups,
        disk: { ok: false, reason: "no loop device can be had here" },
      });
      return undefined;
    } catch (error) {
      return error;
    }
  })();
  assert.ok(SandportError.hasCode(refusal, "UNSUPPORTED"), String(refusal));
  assert.match(refusal.message, /diskMiB: no loop device can be had here/);
  await assert.rejects(rt.launch({ resources: { diskMiB: -1 } }), (error) =>
    SandportError.hasCode(error, "INVALID_REQUEST"),
  );
  assert.deepEqual(await rt.findByLabels({}), []);
});

test("a cgroup limit the construction found no way to place is refused UNSUPPORTED with that reason", () => {
  const options = resolveOptions({ root: root.path, isolation: "none" });
  const refused = { ok: false, reason: "no writable cgroup hierarchy with the pids controller" } as const;
  const verdicts = {
    cgroups: { memory: { ok: true }, cpu: { ok: true }, pids: refused },
    disk: diskSupport(),
  } as const;
  assert.throws(
    () => checkLaunchable(validateLaunchSpec({ resources: { maxProcesses: 8 } }, "local"), options, verdicts),
    (error: unknown) => SandportError.hasCode(error, "UNSUPPORTED") && /maxProcesses: no writable/.test(error.message),
  );
  assert.equal(
    checkLaunchable(validateLaunchSpec({ resources: { memoryMiB: 64 } }, "local"), options, verdicts)?.memoryMiB,
    64,
  );
});
