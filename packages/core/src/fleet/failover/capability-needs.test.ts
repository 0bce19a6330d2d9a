// What a launch uses, read from its spec, against what real local runtimes resolve to: one under
// namespaces (enforces network policies, cgroup limits) and one of plain processes without cgroups.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type LocalTestRuntime, localTestRuntime } from "@sandport/testkit/fakes";
import { resolveCapabilities } from "../../capabilities/resolve-capabilities.js";
import type { ResolvedCapabilities } from "../../capabilities/resolved-capabilities.js";
import { capabilityNeeds, unmetNeeds, validateRequires } from "./capability-needs.js";

let plain: LocalTestRuntime;
let plainCapabilities: ResolvedCapabilities;
before(async () => {
  plain = await localTestRuntime("needs-plain", { isolation: "none", stoppable: false });
  plainCapabilities = resolveCapabilities(plain.runtime);
});
after(async () => {
  await plain?.cleanup();
});

test("a bare launch uses nothing a runtime may lack", () => {
  assert.deepEqual(capabilityNeeds({}), []);
  assert.deepEqual(capabilityNeeds({ template: "x", env: { A: "1" }, labels: { a: "b" }, ports: [] }), []);
  assert.deepEqual(unmetNeeds(plainCapabilities, {}), []);
});

test("ports, a snapshot, a network policy, each resource limit and requires become needs", () => {
  assert.deepEqual(
    capabilityNeeds(
      {
        ports: [8080],
        from: "snap-1",
        network: { allow: ["10.0.0.0/8"] },
        resources: { memoryMiB: 256, cpus: 1, maxProcesses: 32, diskMiB: 100 },
      },
      ["streaming"],
    ),
    [
      { capability: "ports", because: "launch.ports" },
      { capability: "snapshots", because: "launch.from" },
      { capability: "networkPolicy", because: "launch.network allow list" },
      { capability: "memoryLimit", because: "launch.resources.memoryMiB" },
      { capability: "cpuLimit", because: "launch.resources.cpus" },
      { capability: "processLimit", because: "launch.resources.maxProcesses" },
      { capability: "diskLimit", because: "launch.resources.diskMiB" },
      { capability: "streaming", because: "requires" },
    ],
  );
});

test("a runtime of plain processes without cgroups lacks network policies and limits, and has ports and snapshots", () => {
  assert.deepEqual(
    unmetNeeds(plainCapabilities, { ports: [80], from: "snap-1", network: false, resources: { memoryMiB: 64 } }),
    [
      { capability: "networkPolicy", because: "launch.network false" },
      { capability: "memoryLimit", because: "launch.resources.memoryMiB" },
    ],
  );
});

test("the policy decides what network mode is enough: domains for names, cidr or domains for ranges", (t) => {
  const modes = (networkPolicy: unknown) => ({ ...plainCapabilities, networkPolicy }) as ResolvedCapabilities;
  const names = { network: { allow: ["example.com", "10.0.0.0/8"] } } as const;
  const ranges = { network: { allow: ["10.0.0.0/8"] } } as const;
  assert.deepEqual(unmetNeeds(modes("domains"), names), []);
  assert.equal(unmetNeeds(modes("cidr"), names)[0]?.because, "launch.network allow list with domain names");
  assert.deepEqual(unmetNeeds(modes("cidr"), ranges), []);
  assert.equal(unmetNeeds(modes("all-or-none"), ranges).length, 1);
  assert.deepEqual(unmetNeeds(modes("all-or-none"), { network: "none" }), []);
  assert.equal(unmetNeeds(modes("unknown"), { network: "all" }).length, 1, "an absence is one policy, not a choice");
  t.diagnostic("the modes above are set by hand: no runtime here declares cidr or all-or-none");
});

test("a limit passed on but never seen holding (unknown) is not enough", () => {
  const unproven = { ...plainCapabilities, cpuLimit: "unknown" } as ResolvedCapabilities;
  assert.deepEqual(unmetNeeds(unproven, { resources: { cpus: 2 } }), [
    { capability: "cpuLimit", because: "launch.resources.cpus" },
  ]);
});

test("requires names capabilities; anything else is refused", () => {
  assert.deepEqual(validateRequires(undefined, "requires"), []);
  assert.deepEqual(validateRequires(["ports", "isolation"], "requires"), ["ports", "isolation"]);
  assert.throws(() => validateRequires("ports", "requires"), { code: "INVALID_REQUEST", message: /must be an array/ });
  assert.throws(() => validateRequires(["teleport"], "requires"), {
    code: "INVALID_REQUEST",
    message: /"teleport" is not a capability name/,
  });
});
