// Default limits: a launch that names none is still bounded, where this process can enforce the bound.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { limitsSupport } from "../cgroups/limit-support.js";
import { diskSupport } from "../disk/disk-support.js";
import { DEFAULT_RESOURCES, LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { resolveOptions } from "../resolve-options.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import { grantResources, judgeDefaults } from "./launch-resources.js";

const root = temporaryDirectory("default-resources");
after(async () => {
  await root.remove().catch(() => {});
  // Should a test fail midway, no bounded workspace stays mounted.
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const mountPoint = line.split(" ")[4] ?? "";
    if (mountPoint.startsWith(`${root.path}/`)) execFileSync("/usr/bin/umount", [mountPoint]);
  }
});
const skipNamespaces = await bwrapSkipReason();
const cgroupSupport = limitsSupport(undefined);
const disk = diskSupport();
const noPids = cgroupSupport.pids.ok ? undefined : `processes cannot be limited here: ${cgroupSupport.pids.reason}`;
const noMemory = cgroupSupport.memory.ok ? undefined : `memory cannot be limited here: ${cgroupSupport.memory.reason}`;
const noDisk = disk.ok ? undefined : `no disk bound on this host: ${disk.reason}`;

function runtime(options: LocalRuntimeOptions = {}): LocalRuntime {
  return new LocalRuntime({ root: root.path, killGraceMs: 100, ...options });
}

/** The sandbox's stored record: its limit cgroups, and which limits were defaults. */
function recordOf(id: string): SandboxRecord {
  return JSON.parse(readFileSync(join(root.path, id, "sandbox.json"), "utf8")) as SandboxRecord;
}

/** The value of the first of `files` found in the sandbox's limit cgroups (v1 or v2 names). */
function limitFile(id: string, files: readonly string[]): string {
  for (const { directory } of recordOf(id).cgroups?.limits ?? []) {
    for (const file of files) {
      try {
        return readFileSync(join(directory, file), "utf8").trim();
      } catch {
        // Not this hierarchy's file.
      }
    }
  }
  throw new Error(`none of ${files.join(", ")} in the sandbox's limit cgroups`);
}

// Forks up to 2,000 sleepers that hold their process slot, saying how many it has after each fork; no `wait`,
// so without a limit it ends at once (its sleepers die with the command).
const forkBomb = 'i=0; while [ "$i" -lt 2000 ]; do sleep 600 & i=$((i+1)); echo "$i"; done';

test("the built-in defaults are 512 processes, 2 GiB of memory and a 4 GiB workspace, and no CPU quota", () => {
  assert.deepEqual(DEFAULT_RESOURCES, { maxProcesses: 512, memoryMiB: 2048, diskMiB: 4096 });
  assert.deepEqual(resolveOptions({}).defaultResources, DEFAULT_RESOURCES);
  assert.deepEqual(resolveOptions({ defaultResources: false }).defaultResources, {});
  assert.deepEqual(resolveOptions({ defaultResources: { memoryMiB: 512, diskMiB: false, cpus: 1 } }).defaultResources, {
    maxProcesses: 512,
    memoryMiB: 512,
    cpus: 1,
  });
});

test("a malformed defaultResources is refused INVALID_REQUEST, naming the field", () => {
  const refusals: [unknown, RegExp][] = [
    [true, /defaultResources must be false or an object/],
    [{ maxProcesses: 0 }, /defaultResources\.maxProcesses must be a positive number/],
    [{ maxProcesses: 1.5 }, /defaultResources\.maxProcesses must be an integer/],
    [{ memoryMiB: "2G" }, /defaultResources\.memoryMiB must be a positive number/],
    [{ diskMiB: 4 }, /defaultResources\.diskMiB must be at least 8/],
    [{ memory: 64 }, /defaultResources\.memory is unknown/],
  ];
  for (const [defaultResources, message] of refusals) {
    assert.throws(
      () => resolveOptions({ defaultResources } as LocalRuntimeOptions),
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST") && message.test(error.message),
      JSON.stringify(defaultResources),
    );
  }
});

test("a default the machine cannot enforce is reported not applied, with the reason, and never given", async () => {
  const options = resolveOptions({ root: root.path });
  const cannot = { ok: false, reason: "no writable cgroup hierarchy here" } as const;
  const report = judgeDefaults(options, {
    cgroups: { memory: cannot, cpu: cannot, pids: cannot },
    disk: { ok: false, reason: "not root: no loop device" },
  });
  assert.deepEqual(report, {
    applied: {},
    notApplied: {
      maxProcesses: "no writable cgroup hierarchy here",
      memoryMiB: "no writable cgroup hierarchy here",
      diskMiB: "not root: no loop device",
    },
  });
  assert.deepEqual(await grantResources(undefined, report, async () => root.path), {
    resources: undefined,
    defaulted: [],
  });
  const disabled = judgeDefaults(resolveOptions({ root: root.path, cgroups: "disabled" }), {
    cgroups: { memory: { ok: true }, cpu: { ok: true }, pids: { ok: true } },
    disk: { ok: false, reason: "not root" },
  });
  assert.deepEqual(Object.keys(disabled.notApplied).sort(), ["diskMiB", "maxProcesses", "memoryMiB"]);
  assert.match(disabled.notApplied.memoryMiB ?? "", /cgroups: "disabled"/);
});

for (const isolation of ["namespaces", "none"] as const) {
  const skip = isolation === "namespaces" ? skipNamespaces : undefined;
  describe(`default limits (isolation: ${isolation})`, { skip }, () => {
    test("a fork bomb of 2,000 sleepers stops at the default process limit, and the runtime stays healthy", {
      skip: noPids,
    }, async () => {
      const rt = runtime({ isolation, defaultResources: { diskMiB: false } });
      assert.equal(rt.defaultResources.applied.maxProcesses, 512);
      const handle = await rt.launch();
      try {
        assert.equal(handle.resources?.maxProcesses, 512, "the handle says what bounds it");
        assert.equal(limitFile(handle.id, ["pids.max"]), "512");
        const bomb = await rt.exec(handle, { shell: forkBomb, timeoutMs: 120_000 });
        const forked = Number(bomb.stdout.trim().split("\n").at(-1));
        assert.ok(forked < 512, `the sandbox held at most 512 processes: ${forked} sleepers forked`);
        // The shell, and under namespaces bubblewrap and its init, take a few slots of the 512.
        assert.ok(forked > 480, `the limit was the default, not a smaller one: ${forked} sleepers forked`);
        assert.equal(bomb.limit, "processes", JSON.stringify({ ...bomb, stdout: "…" }));
        assert.notEqual(bomb.exitCode, 0);
        const next = await rt.exec(handle, { shell: "sleep 0 & sleep 0 & wait; echo still here", timeoutMs: 30_000 });
        assert.deepEqual([next.exitCode, next.stdout], [0, "still here\n"], "the sandbox's next command forks");
        const other = await rt.launch();
        try {
          const fresh = await rt.exec(other, { shell: "echo fresh", timeoutMs: 30_000 });
          assert.deepEqual([fresh.exitCode, fresh.stdout], [0, "fresh\n"], "another sandbox launches and runs");
        } finally {
          await rt.destroy(other);
        }
      } finally {
        await rt.destroy(handle);
      }
    });

    test("the default memory limit is enforced by the sandbox's cgroup and reported in the handle", {
      skip: noMemory,
    }, async () => {
      const rt = runtime({ isolation, defaultResources: { diskMiB: false } });
      const handle = await rt.launch();
      try {
        assert.equal(handle.resources?.memoryMiB, 2048);
        assert.equal((await rt.getById(handle.id))?.resources?.memoryMiB, 2048, "a rebuilt handle too");
        assert.equal(Number(limitFile(handle.id, ["memory.max", "memory.limit_in_bytes"])), 2048 * 1024 * 1024);
        assert.deepEqual(recordOf(handle.id).defaults, ["maxProcesses", "memoryMiB"]);
        const echo = await rt.exec(handle, { shell: "echo fine" });
        assert.deepEqual([echo.exitCode, echo.stdout, "limit" in echo], [0, "fine\n", false]);
      } finally {
        await rt.destroy(handle);
      }
    });

    test("a launch's own limits win over the defaults; the defaults fill the fields it leaves unset", {
      skip: noPids ?? noMemory,
    }, async () => {
      const rt = runtime({ isolation, defaultResources: { diskMiB: false } });
      const handle = await rt.launch({ resources: { maxProcesses: 64, memoryMiB: 4096 } });
      const partial = await rt.launch({ resources: { maxProcesses: 32 } });
      try {
        assert.deepEqual(handle.resources, { maxProcesses: 64, memoryMiB: 4096 });
        assert.equal(limitFile(handle.id, ["pids.max"]), "64");
        assert.equal(Number(limitFile(handle.id, ["memory.max", "memory.limit_in_bytes"])), 4096 * 1024 * 1024);
        assert.equal(recordOf(handle.id).defaults, undefined, "no limit of it came from the defaults");
        assert.deepEqual(partial.resources, { maxProcesses: 32, memoryMiB: 2048 });
        // A fork keeps its source's own limits and gets the forking runtime's defaults for the rest.
        const other = runtime({ isolation, defaultResources: { memoryMiB: 1024, diskMiB: false }, owner: "sandport" });
        const fork = await other.fork(partial);
        try {
          assert.deepEqual(fork.resources, { maxProcesses: 32, memoryMiB: 1024 });
        } finally {
          await other.destroy(fork);
        }
      } finally {
        await rt.destroy(handle);
        await rt.destroy(partial);
      }
    });

    test("opting out: defaultResources false gives no limit, and a false field drops that default alone", async () => {
      const none = runtime({ isolation, defaultResources: false });
      assert.deepEqual(none.defaultResources, { applied: {}, notApplied: {} });
      const plain = await none.launch();
      const some = runtime({ isolation, defaultResources: { maxProcesses: false, diskMiB: false } });
      const partial = await some.launch();
      try {
        assert.equal(plain.resources, undefined);
        assert.equal(recordOf(plain.id).cgroups?.limits.length ?? 0, 0, "no limit cgroup");
        assert.equal(recordOf(plain.id).disk, undefined, "no bounded workspace");
        // A launch that names no limit forks more than the default allows.
        const many = await none.exec(plain, {
          shell: 'i=0; while [ "$i" -lt 600 ]; do sleep 600 & i=$((i+1)); done; echo "$i"',
          timeoutMs: 120_000,
        });
        assert.deepEqual([many.exitCode, many.stdout], [0, "600\n"]);
        assert.equal(partial.resources?.maxProcesses, undefined);
        assert.equal(partial.resources?.diskMiB, undefined);
        assert.equal(partial.resources?.memoryMiB, cgroupSupport.memory.ok ? 2048 : undefined);
      } finally {
        await none.destroy(plain);
        await some.destroy(partial);
      }
    });

    test('with cgroups: "disabled", a launch still works; the handle reports no cgroup limit, the runtime says why', async () => {
      const rt = runtime({ isolation, cgroups: "disabled" });
      const { applied, notApplied } = rt.defaultResources;
      assert.match(notApplied.maxProcesses ?? "", /cgroups: "disabled"/);
      assert.match(notApplied.memoryMiB ?? "", /cgroups: "disabled"/);
      assert.deepEqual([applied.maxProcesses, applied.memoryMiB], [undefined, undefined]);
      // The disk default needs no cgroup: applied wherever workspaces can be bounded, else said why not.
      assert.equal(applied.diskMiB, disk.ok ? 4096 : undefined);
      assert.equal(notApplied.diskMiB, disk.ok ? undefined : disk.reason);
      const handle = await rt.launch();
      try {
        assert.equal(handle.resources?.maxProcesses, undefined);
        assert.equal(handle.resources?.memoryMiB, undefined);
        // The disk bound needs no cgroup: it stays wherever workspaces can be bounded.
        assert.equal(handle.resources?.diskMiB, disk.ok ? 4096 : undefined);
        const result = await rt.exec(handle, { shell: "echo ran" });
        assert.deepEqual([result.exitCode, result.stdout], [0, "ran\n"]);
      } finally {
        await rt.destroy(handle);
      }
    });

    test("the default disk bound is the workspace's file system: a write past it fails, reported as limit disk", {
      skip: noDisk,
    }, async () => {
      const rt = runtime({ isolation, defaultResources: { diskMiB: 16, maxProcesses: false, memoryMiB: false } });
      const handle = await rt.launch();
      try {
        assert.deepEqual(handle.resources, { diskMiB: 16 }, "the handle reports the disk bound alone");
        const fill = await rt.exec(handle, { shell: "dd if=/dev/zero of=fill bs=1M count=64 2>&1; exit 1" });
        assert.match(fill.stdout, /No space left on device/);
        assert.equal(fill.limit, "disk");
      } finally {
        await rt.destroy(handle);
      }
    });
  });
}

test("a default disk bound larger than the host's free space is left out of the launch, which succeeds", {
  skip: noDisk,
}, async () => {
  // 1 PiB: no host under test has that much free.
  const rt = runtime({ isolation: "none", defaultResources: { diskMiB: 1024 * 1024 * 1024 } });
  assert.equal(rt.defaultResources.applied.diskMiB, 1024 * 1024 * 1024, "the runtime can bound workspaces");
  const handle = await rt.launch();
  try {
    assert.equal(handle.resources?.diskMiB, undefined, "no bound is claimed");
    assert.equal(recordOf(handle.id).disk, undefined);
  } finally {
    await rt.destroy(handle);
  }
  // An explicit bound that large is still refused: only a default gives way.
  await assert.rejects(rt.launch({ resources: { diskMiB: 1024 * 1024 * 1024 } }), (error) =>
    SandportError.hasCode(error, "UNSUPPORTED"),
  );
});

test("a snapshot too large for the default disk bound is refused, saying it is the default and how to raise it", {
  skip: noDisk,
}, async () => {
  const unbounded = runtime({ isolation: "none", defaultResources: false });
  const source = await unbounded.launch();
  try {
    await unbounded.exec(source, { shell: "head -c 24m /dev/urandom > big" });
    const snapshot = await unbounded.snapshot(source);
    const bounded = runtime({ isolation: "none", defaultResources: { diskMiB: 16 } });
    const refusal = await bounded.launch({ from: snapshot }).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(refusal, "INVALID_REQUEST"), String(refusal));
    assert.match(refusal.message, /do not fit in resources\.diskMiB \(16 MiB \(the runtime's default/);
    const fits = await bounded.launch({ from: snapshot, resources: { diskMiB: 64 } });
    assert.deepEqual(fits.resources?.diskMiB, 64);
    await bounded.destroy(fits);
    await unbounded.deleteSnapshot(snapshot);
  } finally {
    await unbounded.destroy(source);
  }
});
