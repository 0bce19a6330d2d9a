// Loading the SDK: each likely cause of a failure is named in one SDK_UNAVAILABLE
// message. The causes are simulated with loaders that fail the way each does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { createMicrosandboxSdkLoader, probeKvm } from "./sdk.js";
import type { MicrosandboxSdk } from "./sdk-types.js";

/** The shape of the SDK, with nothing behind it: loading is all these tests do. */
const loadable = {
  Sandbox: { builder() {}, get() {}, start() {}, remove() {}, listWith() {} },
  native: { pushDefaultBackend: () => 1, popDefaultBackend() {} },
} as unknown as MicrosandboxSdk;

/** What napi-rs's loader throws when the platform package is not installed. */
function missingPlatformPackage(): Error {
  const missing = new Error("Cannot find module '@superradcompany/microsandbox-linux-x64-gnu'");
  return new Error(
    "Cannot find native binding. npm has a bug related to optional dependencies (https://github.com/npm/cli/issues/4828).",
    { cause: missing },
  );
}

/** Runs `check` as if this were Node `version` (the loader reads `process.versions.node` when it fails). */
async function onNode(version: string, check: () => Promise<void>): Promise<void> {
  const real = Object.getOwnPropertyDescriptor(process.versions, "node") as PropertyDescriptor;
  Object.defineProperty(process.versions, "node", { ...real, value: version });
  try {
    await check();
  } finally {
    Object.defineProperty(process.versions, "node", real);
  }
}

test("an SDK that cannot be imported: the install command, the range, and Node when it is older than 22", async () => {
  const syntax = new SyntaxError("Unexpected token 'with'");
  const loader = createMicrosandboxSdkLoader({ backend: "cloud", source: () => Promise.reject(syntax) });
  await onNode("20.18.1", async () => {
    const error = await expectCode(loader, "SDK_UNAVAILABLE");
    assert.match(error.message, /needs the optional peer dependency "microsandbox" \(>=0\.6\.18 <0\.7\)/);
    assert.match(error.message, /npm install microsandbox@">=0\.6\.18 <0\.7"/);
    assert.match(error.message, /It needs Node >=22, and this is Node 20\.18\.1: that is the likely cause/);
    assert.deepEqual([error.retryable, error.cause], [false, syntax]);
  });
  await onNode("22.12.0", async () => {
    const error = await expectCode(loader, "SDK_UNAVAILABLE");
    assert.doesNotMatch(error.message, /this is Node/, "on Node 22 the Node version is not blamed");
  });
});

test("a missing platform package is named, with why npm skips it", async () => {
  const loader = createMicrosandboxSdkLoader({
    backend: "cloud",
    source: () => Promise.reject(missingPlatformPackage()),
  });
  const error = await expectCode(loader, "SDK_UNAVAILABLE");
  const platform = `@superradcompany/microsandbox-${process.platform}-${process.arch}${process.platform === "linux" ? "-gnu" : ""}`;
  assert.ok(error.message.includes(`its platform package ${platform}`), error.message);
  assert.match(error.message, /npm .* under a Node older than 22/);
  assert.equal(error.details.platformPackage, platform);
});

test("a module that is not the SDK (or too old a version) is refused by what it lacks", async () => {
  const { native: _native, ...withoutNative } = loadable;
  const loader = createMicrosandboxSdkLoader({ backend: "cloud", source: withoutNative as MicrosandboxSdk });
  const error = await expectCode(loader, "SDK_UNAVAILABLE");
  assert.match(error.message, /lacks native\.pushDefaultBackend, native\.popDefaultBackend/);
});

test("the local backend without a usable /dev/kvm: SDK_UNAVAILABLE naming it, and the cloud backend never asks", async () => {
  let probes = 0;
  const noKvm = async () => {
    probes += 1;
    return "/dev/kvm does not exist";
  };
  const local = createMicrosandboxSdkLoader({ backend: "local", source: loadable, probeKvm: noKvm });
  const error = await expectCode(local, "SDK_UNAVAILABLE");
  assert.match(error.message, /local backend runs each sandbox in a KVM microVM, but \/dev\/kvm does not exist/);
  assert.match(error.message, /Use the cloud backend/);
  await expectCode(local, "SDK_UNAVAILABLE");
  assert.equal(probes, 2, "a failed check is not cached: a machine may gain KVM");
  const cloud = createMicrosandboxSdkLoader({ backend: "cloud", source: loadable, probeKvm: noKvm });
  assert.equal(await cloud(), loadable);
  assert.equal(probes, 2);
  const usable = createMicrosandboxSdkLoader({ backend: "local", source: loadable, probeKvm: async () => undefined });
  assert.equal(await usable(), loadable);
});

test("probeKvm reports a missing or inaccessible device, and nothing off Linux", async () => {
  const problem = await probeKvm();
  assert.ok(
    problem === undefined || /^\/dev\/kvm (does not exist|is not readable and writable)/.test(problem),
    problem,
  );
});
