// Compile-time check (run by `tsc --noEmit`): the real e2b SDK must satisfy the
// structural slice in sdk-types.ts. If a new SDK version changes any member we
// use, this file stops compiling. The runtime test below only keeps node:test happy.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as RealSdk from "e2b";
import type { E2BSdkModule } from "./sdk-types.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type RealSdkSatisfiesSlice = Satisfies<typeof RealSdk, E2BSdkModule>;

test("the real e2b SDK satisfies the structural slice (checked by tsc)", async () => {
  const sdk: E2BSdkModule = await import("e2b");
  assert.equal(typeof sdk.Sandbox.create, "function");
  assert.equal(typeof sdk.Sandbox.list, "function");
});
