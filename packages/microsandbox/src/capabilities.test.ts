// Capabilities derive from the bound backend and options, never from one process-wide constant.
import assert from "node:assert/strict";
import { test } from "node:test";
import { findCapabilityContradictions, resolveCapabilities } from "@sandport/core";
import { capabilitiesFor, microsandboxCapabilities } from "./capabilities.js";
import { MicrosandboxRuntime } from "./microsandbox-runtime.js";

const cloud = { kind: "cloud", apiKey: "k" } as const;

test("the cloud backend claims what the emulator proves; the local one leaves VM behaviour unknown", () => {
  const onCloud = resolveCapabilities(new MicrosandboxRuntime({ backend: cloud }));
  const onLocal = resolveCapabilities(new MicrosandboxRuntime({ backend: { kind: "local" } }));
  for (const name of ["reattach", "labelSearch", "streaming", "fileOps", "interactive"] as const) {
    assert.equal(onCloud[name], true, name);
    assert.equal(onLocal[name], true, `${name}: the same methods on both backends`);
  }
  for (const name of ["asyncExec", "detachedLaunch", "ports"] as const) {
    assert.equal(onCloud[name], "not-exposed", name);
    assert.equal(onLocal[name], "not-exposed", name);
  }
  assert.deepEqual(
    [onCloud.binaryOutput, onCloud.outputStreams, onCloud.lifetime, onCloud.verifiedCleanup],
    [true, "separate", "deadline", true],
  );
  assert.deepEqual(
    [onLocal.binaryOutput, onLocal.outputStreams, onLocal.lifetime, onLocal.verifiedCleanup],
    ["unknown", "unknown", "unknown", true],
  );
  for (const resolved of [onCloud, onLocal]) {
    assert.deepEqual(
      [resolved.isolation, resolved.filesystem, resolved.lifecycle, resolved.warmLease, resolved.pty],
      ["unknown", "unknown", "unknown", "unknown", "not-exposed"],
      "nothing here proves a microVM, or what stop/start keep on the service",
    );
  }
});

test("an idle timeout changes the lifetime and neverIdle", () => {
  const idle = resolveCapabilities(new MicrosandboxRuntime({ backend: cloud, idleTimeoutMs: 60_000 }));
  assert.equal(idle.lifetime, "idle-timeout");
  assert.equal(idle.neverIdle, "not-exposed");
  const plain = resolveCapabilities(new MicrosandboxRuntime({ backend: cloud }));
  assert.equal(plain.neverIdle, "unknown");
  assert.equal(capabilitiesFor({ backend: "local", idleTimeout: true }).neverIdle, "not-exposed");
});

test("microsandboxCapabilities is the cloud declaration of the default options, and every declaration is consistent", () => {
  assert.deepEqual(microsandboxCapabilities, new MicrosandboxRuntime({ backend: cloud }).capabilities);
  assert.ok(Object.isFrozen(microsandboxCapabilities) && Object.isFrozen(microsandboxCapabilities.modes));
  for (const backend of [cloud, { kind: "local" } as const]) {
    for (const idleTimeoutMs of [undefined, 1_000]) {
      const runtime = new MicrosandboxRuntime({ backend, ...(idleTimeoutMs ? { idleTimeoutMs } : {}) });
      assert.deepEqual(findCapabilityContradictions(runtime), []);
    }
  }
});
