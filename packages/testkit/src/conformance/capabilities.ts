import assert from "node:assert/strict";
import {
  assertCapabilitiesConsistent,
  type CapabilityName,
  DECLARED_CAPABILITIES,
  findCapabilityContradictions,
  isAbsence,
  MODE_NAMES,
  MODE_VALUES,
  type SandboxHandle,
  type SandboxRuntime,
  SPECIFICATION_VERSION,
  STRUCTURAL_CAPABILITIES,
  type StructuralCapability,
} from "@sandport/core";
import { CONFORMANCE_CHECKS, type ConformanceCheckId } from "./checks.js";
import type { CheckGroup } from "./suite.js";

const REQUIRED_METHODS = ["launch", "exec", "writeFiles", "readFile", "destroy"] as const;

/** The port's optional members, grouped by the structural capability that owns them. */
const OWN_METHODS: Readonly<Record<StructuralCapability, readonly string[]>> = {
  reattach: ["getById"],
  labelSearch: ["findByLabels"],
  asyncExec: ["startCommand", "commandStatus", "commandLogs"],
  streaming: ["execStream"],
  detachedLaunch: ["launchDetached"],
  fileOps: ["listDir", "stat", "mkdir", "remove"],
  interactive: ["spawn"],
  ports: ["portEndpoint"],
  pty: ["openTerminal"],
  snapshots: ["snapshot", "listSnapshots", "deleteSnapshot"],
  fork: ["fork"],
  fileStreaming: ["readFileStream"],
};
/** Optional members beyond {@link OWN_METHODS}: `stop`/`start`, which the declared `lifecycle` covers. */
const OPTIONAL_METHODS = [...Object.values(OWN_METHODS).flat(), "stop", "start"];

/**
 * Which checks prove each capability (an id, or an id prefix ending in `.`).
 * Capabilities missing here cannot be checked by a short offline run.
 */
const EXERCISED_BY: Readonly<Partial<Record<CapabilityName, readonly string[]>>> = {
  reattach: ["lifecycle.reattach", "lifecycle.reattach-new-instance", "lifecycle.reattach-unknown", "async.reattach"],
  labelSearch: ["lifecycle.label-search", "lifecycle.invalid-launch", "lifecycle.destroy"],
  asyncExec: ["async."],
  streaming: ["streaming."],
  detachedLaunch: ["lifecycle.detached-launch"],
  fileOps: ["fileops."],
  interactive: ["interactive."],
  ports: ["ports.http"],
  pty: ["terminal."],
  snapshots: ["snapshots.", "lifecycle.snapshot-refused"],
  fork: ["lifecycle.fork"],
  fileStreaming: ["files.stream", "files.stream-refusals", "files.stream-abort", "files.stream-destroyed"],
  binaryOutput: ["exec.binary-output", "interactive.binary-output"],
  lifecycle: ["lifecycle.stop-start"],
  verifiedCleanup: ["lifecycle.destroy", "lifecycle.destroy-running"],
  outputStreams: ["exec.output-streams", "exec.output-cap", "async.start-status-logs", "streaming.events"],
  isolation: ["exec.result-shape", "streaming.events"],
  networkPolicy: ["lifecycle.network-policy", "lifecycle.network-allow"],
  memoryLimit: ["limits.memory"],
  processLimit: ["limits.processes"],
  diskLimit: ["limits.disk"],
  filesystem: ["lifecycle.stop-start"],
  stopKeeps: ["lifecycle.stop-keeps"],
};

function checksOf(capability: CapabilityName): ConformanceCheckId[] {
  const patterns = EXERCISED_BY[capability] ?? [];
  return (Object.keys(CONFORMANCE_CHECKS) as ConformanceCheckId[]).filter((id) =>
    patterns.some((pattern) => (pattern.endsWith(".") ? id.startsWith(pattern) : id === pattern)),
  );
}

function member(runtime: SandboxRuntime<SandboxHandle>, name: string): unknown {
  return (runtime as unknown as Record<string, unknown>)[name];
}

/**
 * Registers the capability checks. They run last: `capabilities.exercised`
 * reads the outcomes of every other check of the run.
 */
export function declareCapabilityChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { suite } = group;
  const runtime: SandboxRuntime<SandboxHandle> = group.runtime;
  const resolved = suite.capabilities as unknown as Readonly<Record<CapabilityName, unknown>>;

  group.check("capabilities.port-shape", () => {
    assert.equal(runtime.specificationVersion, SPECIFICATION_VERSION, "specificationVersion");
    assert.match(runtime.provider, /^[a-z][a-z0-9-]*$/, "provider is a short lowercase name");
    const root = runtime.workspaceRoot;
    assert.ok(root.startsWith("/"), `workspaceRoot ${root} is absolute`);
    assert.ok(root === "/" || !root.endsWith("/"), `workspaceRoot ${root} has no trailing slash`);
    assert.ok(!root.split("/").some((part) => part === "." || part === ".."), `workspaceRoot ${root} is normalised`);
    assert.ok(!root.includes("//"), `workspaceRoot ${root} is normalised`);
    for (const name of REQUIRED_METHODS) assert.equal(typeof member(runtime, name), "function", `${name} is required`);
  });

  group.check("capabilities.consistent", () => {
    assert.deepEqual(findCapabilityContradictions(runtime), [], "the declaration contradicts the methods");
    assert.doesNotThrow(() => assertCapabilitiesConsistent(runtime));
    for (const name of OPTIONAL_METHODS) {
      const value = member(runtime, name);
      assert.ok(value === undefined || typeof value === "function", `${name} is present but not a function`);
    }
  });

  group.check("capabilities.structural", () => {
    for (const name of STRUCTURAL_CAPABILITIES) {
      const value = resolved[name];
      const needed = name === "asyncExec" ? [...OWN_METHODS[name], "getById"] : OWN_METHODS[name];
      const present = OWN_METHODS[name].filter((method) => typeof member(runtime, method) === "function");
      if (value === true) {
        for (const method of needed)
          assert.equal(typeof member(runtime, method), "function", `${name} needs ${method}`);
      } else {
        assert.ok(isAbsence(value), `${name} is ${String(value)}: an absence must be unsupported|not-exposed|unknown`);
        assert.deepEqual(present, [], `${name} is ${String(value)}, yet ${present.join(", ")} are present`);
      }
    }
  });

  group.check("capabilities.exercised", (t) => {
    const failures: string[] = [];
    for (const name of [...STRUCTURAL_CAPABILITIES, ...DECLARED_CAPABILITIES, ...MODE_NAMES]) {
      const value = resolved[name];
      if (isAbsence(value)) continue;
      const checks = checksOf(name);
      if (checks.length === 0) {
        t.diagnostic(`${name} = ${String(value)}: not checkable by this suite`);
        continue;
      }
      const failed = checks.filter((id) => suite.outcomes.get(id) === "failed");
      const passed = checks.filter((id) => suite.outcomes.get(id) === "passed");
      const deviated = checks.filter((id) => suite.outcomes.get(id) === "deviated");
      const notRun = checks.filter((id) => !suite.outcomes.has(id));
      t.diagnostic(
        `${name} = ${String(value)}: ${passed.length} passed, ${failed.length} failed, ` +
          `${deviated.length} known deviation(s)${deviated.length > 0 ? ` (${deviated.join(", ")})` : ""}, ` +
          `${notRun.length} not run` +
          (notRun.length > 0
            ? ` (${notRun.map((id) => `${id}: ${suite.skipReasons.get(id) ?? "not run in this run"}`).join("; ")})`
            : ""),
      );
      if (failed.length > 0) failures.push(`${name} = ${String(value)} but ${failed.join(", ")} failed`);
    }
    assert.deepEqual(failures, [], "claimed capabilities that did not hold");
  });

  group.check("capabilities.declared", (t) => {
    for (const name of DECLARED_CAPABILITIES) {
      const value = resolved[name];
      assert.ok(value === true || isAbsence(value), `${name} is ${String(value)}: true or an absence, never false`);
    }
    for (const name of MODE_NAMES) {
      const value = resolved[name];
      assert.ok(isAbsence(value) || MODE_VALUES[name].includes(value as string), `${name} has value ${String(value)}`);
    }
    const sources = suite.capabilities.sources as Readonly<Record<string, string>>;
    const table = [...STRUCTURAL_CAPABILITIES, ...DECLARED_CAPABILITIES, ...MODE_NAMES]
      .map((name) => `${name}=${String(resolved[name])} (${sources[name]})`)
      .join(", ");
    t.diagnostic(`${runtime.provider}: ${table}`);
  });
}
