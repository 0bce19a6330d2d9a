// Compile-time check (run by `tsc --noEmit`): the real @vercel/sandbox SDK, the newest
// (3.5) and the oldest (3.0) in the supported range, must satisfy the structural slice in
// sdk-types.ts. If a version changes any member we use, this file stops compiling.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as Sdk35 from "@vercel/sandbox";
import type * as Sdk30 from "vercel-sandbox-3.0";
import type { VercelSdkModule } from "./sdk-types.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type Sdk35SatisfiesSlice = Satisfies<typeof Sdk35, VercelSdkModule>;
export type Sdk30SatisfiesSlice = Satisfies<typeof Sdk30, VercelSdkModule>;

test("the real SDKs (3.5 and 3.0) satisfy the structural slice (checked by tsc)", async () => {
  for (const sdk of [await import("@vercel/sandbox"), await import("vercel-sandbox-3.0")] as VercelSdkModule[]) {
    assert.equal(typeof sdk.Sandbox.create, "function");
    assert.equal(typeof sdk.Sandbox.list, "function");
  }
});
