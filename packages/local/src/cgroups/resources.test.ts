// Resource limits are enforced through cgroups, or refused; never silently ignored.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { runsAsRoot } from "../options.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import { probeCgroupHost } from "./cgroup-host.js";

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
  for (const resources of [{ memoryMiB: 64 }, { maxProcesses: 4 }, { cpus: 1 }]) {
    await assert.rejects(rt.launch({ resources }), (error) => SandportError.hasCode(error, "UNSUPPORTED"));
  }
  assert.deepEqual(await rt.findByLabels({}), []);
});
