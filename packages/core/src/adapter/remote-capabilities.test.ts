// remoteCapabilities: the cells every remote adapter shares, and a frozen declaration.
import assert from "node:assert/strict";
import { test } from "node:test";
import { remoteCapabilities } from "./remote-capabilities.js";

const limits = {
  memoryLimit: "unknown",
  cpuLimit: "unknown",
  processLimit: "unsupported",
  diskLimit: "unsupported",
} as const;

const modes = {
  outputStreams: "separate",
  filesystem: "unknown",
  lifetime: "deadline",
  isolation: "microvm",
  networkPolicy: "all-or-none",
  stopKeeps: "unknown",
} as const;

test("fills warmLease and verifiedCleanup, and keeps the adapter's own cells", () => {
  const declared = remoteCapabilities({
    lifecycle: "unsupported",
    neverIdle: "unknown",
    binaryOutput: true,
    ...limits,
    modes,
  });
  assert.deepEqual(declared, {
    warmLease: "unknown",
    verifiedCleanup: true,
    lifecycle: "unsupported",
    neverIdle: "unknown",
    binaryOutput: true,
    ...limits,
    modes,
  });
  assert.equal("absent" in declared, false);
});

test("freezes the declaration, its modes and its absences, without freezing what the adapter passed", () => {
  const absent = { asyncExec: "unsupported" } as const;
  const own = {
    lifecycle: "unknown",
    neverIdle: "unknown",
    binaryOutput: "not-exposed",
    ...limits,
    modes: { ...modes },
    absent: { ...absent },
  } as const;
  const declared = remoteCapabilities(own);
  assert.ok(Object.isFrozen(declared));
  assert.ok(Object.isFrozen(declared.modes));
  assert.ok(Object.isFrozen(declared.absent));
  assert.deepEqual(declared.absent, absent);
  assert.equal(Object.isFrozen(own.modes), false);
});
