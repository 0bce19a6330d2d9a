// LaunchSpec.resources through the real modal SDK against the Modal emulator, which enforces Modal's hard
// limits (cpuLimit, memoryLimitMiB) and never a reservation: the port's memoryMiB holds in the sandbox, and
// the handle launch returns says so; Modal's lookups carry no sizes, so rebuilt handles say nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { ModalClient } from "modal";
import { emulated } from "../test/emulated.js";

const { emulator, runtime, options } = await emulated({ owner: "resources-tests" });

/** The emulator applies Modal's limits through its backend's cgroups, which this process may not be able to place. */
const noMemoryLimit =
  emulator.backend.capabilities.memoryLimit === true
    ? undefined
    : `the emulator's backend cannot limit memory here (memoryLimit is ${emulator.backend.capabilities.memoryLimit})`;

/** What Modal's listing reports of a sandbox's resources (`SandboxInfo.resourceInfo`, which the SDK's list drops). */
async function reportedResources(sandboxId: string): Promise<Record<string, unknown> | undefined> {
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const client = emulator.construct(() => new ModalClient({ ...emulator.sdkOptions, logger: silent }));
  try {
    const app = await client.apps.fromName(options.appName ?? "sandport", { environment: "main" });
    const control = (client as unknown as { cpClient: ResourceListing }).cpClient;
    const { sandboxes } = await control.sandboxListV2({ appId: app.appId });
    return sandboxes.find((entry) => entry.id === sandboxId)?.resourceInfo;
  } finally {
    client.close();
  }
}

/** The SDK's hidden control-plane client, as far as the listing's resource report goes. */
interface ResourceListing {
  sandboxListV2(request: {
    appId: string;
  }): Promise<{ sandboxes: { id: string; resourceInfo?: Record<string, unknown> }[] }>;
}

test("a command past the memory limit is killed, and the sandbox runs the next one", {
  skip: noMemoryLimit,
}, async () => {
  const handle = await runtime.launch({ resources: { memoryMiB: 64 } });
  try {
    const bomb = await runtime.exec(handle, { shell: "head -c 256m /dev/zero | tail > /dev/null", timeoutMs: 60_000 });
    assert.notEqual(bomb.exitCode, 0, `the memory bomb was stopped: exit ${bomb.exitCode}`);
    assert.equal(bomb.timedOut, false);
    const next = await runtime.exec(handle, { shell: "echo still here" });
    assert.equal(next.stdout, "still here\n");
    assert.deepEqual(handle.resources, { memoryMiB: 64 }, "the hard limit Modal applies");
  } finally {
    await runtime.destroy(handle);
  }
});

test("launch's handle holds the hard limits Modal applies, as its listing reports them; getById and findByLabels hold none", {
  skip: noMemoryLimit,
}, async () => {
  const handle = await runtime.launch({ resources: { memoryMiB: 256 }, launchKey: "limited" });
  try {
    assert.deepEqual(handle.resources, { memoryMiB: 256 });
    const reported = await reportedResources(handle.id);
    assert.equal(reported?.memoryMbMax, 256, "what Modal says it enforces");
    assert.equal(reported?.milliCpuMax, 0, "no CPU limit asked, none set");
    const rebuilt = await runtime.getById(handle.id);
    assert.equal(rebuilt?.id, handle.id);
    assert.equal(rebuilt?.resources, undefined, "a poll and the tags say nothing of resources");
    const [found] = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: "limited" });
    assert.equal(found?.id, handle.id);
    assert.equal(found?.resources, undefined, "the SDK's listing yields ids only");
  } finally {
    await runtime.destroy(handle);
  }
});

test("a launch that set no limit reports no resources: Modal's defaults are reservations, not ceilings", async () => {
  const handle = await runtime.launch();
  try {
    assert.equal(handle.resources, undefined);
    const reported = await reportedResources(handle.id);
    assert.deepEqual([reported?.memoryMbMax, reported?.milliCpuMax], [0, 0], "Modal set no ceiling either");
  } finally {
    await runtime.destroy(handle);
  }
});

test("sizes Modal cannot be sent exactly are refused UNSUPPORTED before any request", async () => {
  emulator.resetRequests();
  for (const resources of [{ cpus: 0.0005 }, { cpus: 1.2345 }, { memoryMiB: 64.5 }]) {
    await expectCode(runtime.launch({ resources }), "UNSUPPORTED", JSON.stringify(resources));
  }
  assert.equal(emulator.countRequests(), 0);
});
