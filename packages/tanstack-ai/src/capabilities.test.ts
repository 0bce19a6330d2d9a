// The capability descriptor follows the runtime's methods and modes; a missing method is TanStack AI's
// unsupported error at the call, with the descriptor saying so beforehand.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type LocalTestRuntime, localTestRuntime, RecordingRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { UnsupportedCapabilityError } from "@tanstack/ai-sandbox";
import { tanstackCapabilities } from "./capabilities.js";
import { sandportSandboxProvider } from "./provider.js";

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("tanstack-capabilities");
});
after(() => local.cleanup());

test("a full runtime has ports, background processes with stdin and a durable filesystem; never snapshots or fork", () => {
  assert.deepEqual(tanstackCapabilities(local.runtime), {
    fs: true,
    exec: true,
    env: true,
    ports: true,
    backgroundProcesses: true,
    writableStdin: true,
    snapshots: false,
    networkPolicy: false,
    durableFilesystem: true,
    fork: false,
  });
});

test("a runtime with only the required methods and ephemeral files lacks ports, processes and durability", () => {
  const capabilities = tanstackCapabilities(new RecordingRuntime());
  assert.deepEqual(
    [capabilities.ports, capabilities.backgroundProcesses, capabilities.writableStdin, capabilities.durableFilesystem],
    [false, false, false, false],
  );
  assert.deepEqual([capabilities.fs, capabilities.exec, capabilities.env], [true, true, true]);
});

test("without spawn, portEndpoint and the file operations, those calls are TanStack AI's unsupported error", async () => {
  const runtime = withoutMethods(local.runtime, ["spawn", "portEndpoint", "listDir", "stat", "mkdir", "remove"]);
  const provider = sandportSandboxProvider({ runtime });
  assert.deepEqual([provider.capabilities().backgroundProcesses, provider.capabilities().ports], [false, false]);
  const handle = await provider.create({ id: "lacking" });
  try {
    assert.equal(handle.capabilities.writableStdin, false);
    const unsupported = (capability: string) => (error: unknown) =>
      error instanceof UnsupportedCapabilityError && error.capability === capability;
    await assert.rejects(handle.process.spawn("cat"), unsupported("backgroundProcesses"));
    await assert.rejects(handle.ports.connect(8080), unsupported("ports"));
    await assert.rejects(handle.fs.list("/workspace"), unsupported("fs.list"));
    await assert.rejects(handle.fs.exists("a"), unsupported("fs.exists"));
    await assert.rejects(handle.fs.mkdir("a"), unsupported("fs.mkdir"));
    await assert.rejects(handle.fs.remove("a"), unsupported("fs.remove"));
    // What remains works: files and commands.
    await handle.fs.write("a.txt", "a");
    assert.equal((await handle.process.exec("cat a.txt")).stdout, "a");
  } finally {
    await handle.destroy();
  }
});

test("the handle has no snapshot or fork member and the provider no restoreSnapshot", async () => {
  const provider = sandportSandboxProvider({ runtime: local.runtime });
  assert.equal(provider.restoreSnapshot, undefined);
  const handle = await provider.create({});
  try {
    assert.equal(handle.snapshot, undefined);
    assert.equal(handle.fork, undefined);
    assert.equal(handle.fs.watch, undefined);
  } finally {
    await handle.destroy();
  }
});
