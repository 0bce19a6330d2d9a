// Compile-time check (run by `tsc --noEmit`): the real modal SDK must satisfy the
// structural slice in sdk-types.ts. If a new SDK version changes any member we
// use, this file stops compiling. The runtime test below only keeps node:test happy.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as RealSdk from "modal";
import type { ModalSdkModule } from "./sdk-types.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type RealSdkSatisfiesSlice = Satisfies<typeof RealSdk, ModalSdkModule>;

test("the real modal SDK satisfies the structural slice (checked by tsc)", async () => {
  const sdk: ModalSdkModule = await import("modal");
  assert.equal(typeof sdk.ModalClient, "function");
});
