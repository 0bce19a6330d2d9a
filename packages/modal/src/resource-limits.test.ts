// The mapping of LaunchSpec.resources to Modal's hard limits and back to the handle's resources:
// what the SDK sends is `Math.trunc(1000 × cpu)` millicores (its buildSandboxCreateV2RequestProto) and
// whole MiB, so the handle reports exactly that, and what cannot be sent exactly is refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "@sandport/core";
import { checkModalSizes, grantedLimits, limitsOf } from "./resource-limits.js";

/** The millicores the SDK puts on the wire for a `cpu` / `cpuLimit` (its own truncation). */
const sdkMillicores = (cores: number | undefined) => (cores === undefined ? undefined : Math.trunc(1000 * cores));

test("cpus become millicores the SDK sends as asked, even where 1000 × cpus falls just short in floating point", () => {
  for (const cpus of [0.57, 0.29, 1.005, 0.001, 2, 0.125]) {
    const limits = limitsOf({ cpus });
    const expected = Math.round(cpus * 1000);
    assert.equal(sdkMillicores(limits.cpuLimit), expected, `cpuLimit for ${cpus}`);
    assert.equal(sdkMillicores(limits.cpu), expected, `the equal reservation for ${cpus}`);
    assert.deepEqual(grantedLimits(limits), { cpus }, `granted for ${cpus}`);
  }
});

test("memoryMiB is the hard limit and its reservation; the handle reports the limit", () => {
  const limits = limitsOf({ memoryMiB: 256 });
  assert.deepEqual(limits, { memoryMiB: 256, memoryLimitMiB: 256 });
  assert.deepEqual(grantedLimits(limitsOf({ memoryMiB: 256, cpus: 0.5 })), { cpus: 0.5, memoryMiB: 256 });
  assert.ok(Object.isFrozen(grantedLimits(limits)));
});

test("no limit asked is no resources reported: Modal's defaults are reservations, not ceilings", () => {
  assert.deepEqual(limitsOf(undefined), {});
  assert.equal(grantedLimits(limitsOf(undefined)), undefined);
  assert.equal(grantedLimits({}), undefined);
});

test("sizes Modal cannot be sent exactly are refused UNSUPPORTED, never rounded", () => {
  for (const resources of [{ cpus: 0.0005 }, { cpus: 0.0004 }, { cpus: 1.2345 }, { memoryMiB: 64.5 }]) {
    assert.throws(
      () => checkModalSizes(resources),
      (error: unknown) => SandportError.hasCode(error, "UNSUPPORTED"),
      JSON.stringify(resources),
    );
  }
  for (const resources of [undefined, { cpus: 0.57 }, { cpus: 16 }, { memoryMiB: 64 }, { cpus: 0.001 }]) {
    checkModalSizes(resources);
  }
});
