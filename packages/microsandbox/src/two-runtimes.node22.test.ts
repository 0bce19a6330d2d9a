// The SDK's default backend is process-wide. Two runtimes bound to two
// emulators, their calls interleaved and concurrent, must each reach only
// their own; a third backend, set as the process default by other code,
// hears nothing and is the default again afterwards.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type MicrosandboxEmulator, startMicrosandboxEmulator } from "@sandport/testkit/emulators/microsandbox";
import { cloudOf } from "../test/emulated.js";
import type { MicrosandboxHandle } from "./handle.js";
import { createMicrosandboxSdkLoader } from "./internal/sdk.js";
import { MicrosandboxRuntime } from "./microsandbox-runtime.js";

let first: MicrosandboxEmulator;
let second: MicrosandboxEmulator;
let bystander: MicrosandboxEmulator;

before(async () => {
  [first, second, bystander] = await Promise.all([
    startMicrosandboxEmulator(),
    startMicrosandboxEmulator(),
    startMicrosandboxEmulator(),
  ]);
});
after(() => Promise.all([first.stop(), second.stop(), bystander.stop()]));

/** Everything a runtime does to one sandbox, each step a separate SDK entry point or agent session. */
async function workload(runtime: MicrosandboxRuntime, handle: MicrosandboxHandle, tag: string): Promise<void> {
  await runtime.writeFiles(handle, [{ path: `${tag}.txt`, content: tag }]);
  assert.equal((await runtime.exec(handle, { argv: ["cat", `${tag}.txt`] })).stdout, tag);
  assert.equal((await runtime.getById(handle.id))?.id, handle.id, `${tag}: getById found its own sandbox`);
  assert.deepEqual(
    (await runtime.findByLabels({ tag })).map((found) => found.id),
    [handle.id],
    `${tag}: findByLabels listed its own emulator`,
  );
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, `${tag}.txt`)), tag);
}

test("interleaved and concurrent calls of two runtimes on two backends never cross", async () => {
  const sdk = await createMicrosandboxSdkLoader({ backend: "cloud" })();
  const { setDefaultBackend, defaultBackendInfo } = await import("microsandbox");
  setDefaultBackend(bystander.sdkBackend);
  const before = defaultBackendInfo();
  assert.ok(sdk.native, "the SDK is loaded");

  const one = new MicrosandboxRuntime({ backend: cloudOf(first), owner: "twins" });
  const two = new MicrosandboxRuntime({ backend: cloudOf(second), owner: "twins" });
  const rounds = 6;
  const launched = await Promise.all(
    Array.from({ length: rounds }, (_, index) =>
      index % 2 === 0
        ? one.launch({ labels: { tag: `one-${index}` } })
        : two.launch({ labels: { tag: `two-${index}` } }),
    ),
  );
  await Promise.all(
    launched.map((handle, index) =>
      workload(index % 2 === 0 ? one : two, handle, index % 2 === 0 ? `one-${index}` : `two-${index}`),
    ),
  );
  // Lookups with the same name on both sides, many at once: each must answer from its own emulator.
  for (let round = 0; round < 25; round++) {
    const [fromOne, fromTwo] = await Promise.all([
      one.getById(launched[0]?.id as string),
      two.getById(launched[0]?.id as string),
    ]);
    assert.equal(fromOne?.id, launched[0]?.id);
    assert.equal(fromTwo, undefined, "the second runtime's emulator never had the first's sandbox");
  }
  // Fresh instances attach (lookup, then connect) to sandboxes they did not launch, all at once.
  const oneAgain = new MicrosandboxRuntime({ backend: cloudOf(first), owner: "twins" });
  const twoAgain = new MicrosandboxRuntime({ backend: cloudOf(second), owner: "twins" });
  const echoed = await Promise.all(
    launched.map((handle, index) => (index % 2 === 0 ? oneAgain : twoAgain).exec(handle, { argv: ["ls"] })),
  );
  echoed.forEach((result, index) => {
    const tag = index % 2 === 0 ? `one-${index}` : `two-${index}`;
    assert.equal(result.stdout, `${tag}.txt\n`, `${tag}: the reattached runtime reached its own sandbox`);
  });
  await Promise.all(launched.map((handle, index) => (index % 2 === 0 ? one : two).stop(handle)));
  await Promise.all(launched.map((handle, index) => (index % 2 === 0 ? one : two).start(handle)));
  await Promise.all(launched.map((handle, index) => (index % 2 === 0 ? one : two).destroy(handle)));

  for (const [emulator, count] of [
    [first, Math.ceil(rounds / 2)],
    [second, Math.floor(rounds / 2)],
  ] as const) {
    const creates = emulator.requests.filter((request) => request.route === "POST /v1/sandboxes");
    assert.equal(creates.length, count, "each emulator created exactly its runtime's sandboxes");
    for (const request of emulator.requests) {
      assert.equal(request.headers.authorization, `Bearer ${emulator.apiKey}`, `${request.route} with another key`);
    }
    assert.deepEqual(emulator.liveSandboxes(), []);
    assert.deepEqual(emulator.unknownRoutes, []);
  }
  assert.deepEqual(bystander.requests, [], "the process default of other code heard nothing");
  assert.deepEqual(defaultBackendInfo(), before, "the process default is what other code set");
});
