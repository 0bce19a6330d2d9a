// The handle's mapping from E2B's sandbox info: what E2B reports it gave (cpuCount, memoryMB in MiB)
// becomes resources in the port's units; what it does not report is left out, never guessed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { grantedResources, handleFromInfo } from "./handle.js";
import type { E2BSandboxInfo } from "./internal/sdk-types.js";

const info = (more: Partial<E2BSandboxInfo> = {}): E2BSandboxInfo => ({
  sandboxId: "sbx1",
  templateId: "base",
  metadata: { job: "42" },
  startedAt: new Date("2026-01-02T03:04:05.000Z"),
  state: "running",
  ...more,
});

test("cpuCount and memoryMB (MiB) become cpus and memoryMiB; nothing else is reported", () => {
  assert.deepEqual(grantedResources(info({ cpuCount: 8, memoryMB: 16_384 })), { cpus: 8, memoryMiB: 16_384 });
  const handle = handleFromInfo(info({ cpuCount: 2, memoryMB: 512 }));
  assert.deepEqual(handle, {
    id: "sbx1",
    provider: "e2b",
    labels: { job: "42" },
    createdAt: "2026-01-02T03:04:05.000Z",
    resources: { cpus: 2, memoryMiB: 512 },
  });
  assert.ok(Object.isFrozen(handle.resources), "what was granted cannot be edited on the handle");
});

test("a size the answer lacks, or that is no size, is left out; none at all leaves resources absent", () => {
  assert.deepEqual(grantedResources(info({ cpuCount: 4 })), { cpus: 4 });
  assert.deepEqual(grantedResources(info({ memoryMB: 1024 })), { memoryMiB: 1024 });
  assert.deepEqual(grantedResources(info({ cpuCount: Number.NaN, memoryMB: 0 })), undefined);
  assert.equal(grantedResources(info()), undefined);
  assert.equal("resources" in handleFromInfo(info()), false, "no resources key when E2B reports none");
});
