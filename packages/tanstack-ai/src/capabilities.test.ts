// The capability descriptor follows the runtime's methods and modes; a missing method is TanStack AI's
// unsupported error at the call, with the descriptor saying so beforehand.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { type DeclaredCapabilities, type NetworkPolicyMode, SandportError } from "@sandport/core";
import {
  type LocalTestRuntime,
  localTestRuntime,
  namespacesSkipReason,
  RecordingRuntime,
  recordingCapabilities,
  withoutMethods,
} from "@sandport/testkit/fakes";
import { UnsupportedCapabilityError } from "@tanstack/ai-sandbox";
import { tanstackCapabilities } from "./capabilities.js";
import { sandportSandboxProvider } from "./provider.js";

/** Allow lists are enforced only under namespaces; without bubblewrap the test that uses one skips. */
const namespacesOnly = await namespacesSkipReason();
let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("tanstack-capabilities");
});
after(() => local.cleanup());

test("a full runtime has ports, background processes with stdin, a durable filesystem, snapshots and fork and, isolated, a network policy", () => {
  assert.deepEqual(tanstackCapabilities(local.runtime), {
    fs: true,
    exec: true,
    env: true,
    ports: true,
    backgroundProcesses: true,
    writableStdin: true,
    snapshots: true,
    // The local runtime enforces allow lists under namespaces; with isolation "none" it enforces no policy.
    networkPolicy: local.isolation === "namespaces",
    durableFilesystem: true,
    fork: true,
  });
});

test("networkPolicy follows the runtime's networkPolicy mode: true only where it enforces allow lists", () => {
  const withMode = (networkPolicy: NetworkPolicyMode | "unsupported" | "not-exposed") => {
    const capabilities: DeclaredCapabilities = {
      ...recordingCapabilities,
      modes: { ...recordingCapabilities.modes, networkPolicy },
    };
    return tanstackCapabilities(Object.assign(new RecordingRuntime(), { capabilities })).networkPolicy;
  };
  assert.deepEqual(
    [withMode("domains"), withMode("cidr"), withMode("all-or-none"), withMode("unsupported"), withMode("not-exposed")],
    [true, true, false, false, false],
  );
});

test("where networkPolicy is true, a provider launching with an allow list reaches only what it allows", {
  skip: namespacesOnly,
}, async () => {
  const server = createServer((_request, response) => response.end("allowed"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  // Through the proxy variables, loopback included (NO_PROXY emptied): the sandbox's own loopback is not the host's.
  const fetch = `NO_PROXY= no_proxy= python3 -c "import sys, urllib.request, urllib.error
try: print(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())
except urllib.error.HTTPError as error: print('HTTP', error.code)
except Exception as error: print('FAIL', type(error).__name__)"`;
  const provider = sandportSandboxProvider({
    runtime: local.runtime,
    launch: { network: { allow: [`127.0.0.1/32`] } },
  });
  assert.equal(provider.capabilities().networkPolicy, true);
  const handle = await provider.create({});
  try {
    assert.equal((await handle.process.exec(`${fetch} http://127.0.0.1:${port}/`)).stdout.trim(), "allowed");
    assert.equal((await handle.process.exec(`${fetch} http://example.com/`)).stdout.trim(), "HTTP 403");
  } finally {
    await handle.destroy();
    server.close();
  }
});

test("where networkPolicy is false, a launch with an allow list is TanStack AI's unsupported error, nothing launched", async () => {
  // Under isolation "none" commands always have the host's network: the runtime enforces no policy.
  const plain = await localTestRuntime("tanstack-network-none", { isolation: "none" });
  try {
    const provider = sandportSandboxProvider({
      runtime: plain.runtime,
      launch: { network: { allow: ["api.example.com"] } },
    });
    assert.equal(provider.capabilities().networkPolicy, false);
    await assert.rejects(provider.create({ id: "refused" }), (error: unknown) => {
      assert.ok(error instanceof UnsupportedCapabilityError);
      assert.equal(error.capability, "networkPolicy");
      assert.ok(SandportError.hasCode(error.cause, "UNSUPPORTED"), "the runtime's refusal is the cause");
      return true;
    });
    assert.deepEqual(await plain.runtime.findByLabels({}), [], "no sandbox was created");
  } finally {
    await plain.cleanup();
  }
});

test("a runtime with only the required methods and ephemeral files lacks ports, processes and durability", () => {
  const capabilities = tanstackCapabilities(new RecordingRuntime());
  assert.deepEqual(
    [
      capabilities.ports,
      capabilities.backgroundProcesses,
      capabilities.writableStdin,
      capabilities.durableFilesystem,
      capabilities.snapshots,
      capabilities.fork,
    ],
    [false, false, false, false, false, false],
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

test("the handle has no fs.watch member: TanStack AI polls instead", async () => {
  const handle = await sandportSandboxProvider({ runtime: local.runtime }).create({});
  try {
    assert.equal(handle.fs.watch, undefined);
  } finally {
    await handle.destroy();
  }
});
