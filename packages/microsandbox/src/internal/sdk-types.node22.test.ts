// Compile-time check (run by `tsc --noEmit`): the real microsandbox SDK must
// satisfy the structural slice in sdk-types.ts. If a new SDK version changes
// any member used, this file stops compiling. At run time (Node 22), the real
// loader finds every member it requires, the native backend scope included.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as RealModule from "microsandbox";
import type * as RealNative from "microsandbox/native";
import { createMicrosandboxSdkLoader } from "./sdk.js";
import type { MsbBackendScope, MsbSandboxStatics } from "./sdk-types.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type RealStaticsSatisfySlice = Satisfies<(typeof RealModule)["Sandbox"], MsbSandboxStatics>;
export type RealNativeSatisfiesSlice = Satisfies<typeof RealNative, MsbBackendScope>;

test("the real SDK loads, with the native backend scope the module does not re-export", async () => {
  const sdk = await createMicrosandboxSdkLoader({ backend: "cloud" })();
  assert.equal(typeof sdk.Sandbox.builder, "function");
  assert.equal(typeof sdk.native.pushDefaultBackend, "function");
  const { defaultBackendInfo } = await import("microsandbox");
  const before = defaultBackendInfo();
  const token = sdk.native.pushDefaultBackend("cloud", "http://127.0.0.1:9", "k", null);
  assert.deepEqual(defaultBackendInfo(), { kind: "cloud", source: "programmatic", apiUrl: "http://127.0.0.1:9" });
  sdk.native.popDefaultBackend(token);
  assert.deepEqual(defaultBackendInfo(), before, "the same native state the module reads");
});
